/* Search as you type in the header box (ARIA 1.2 combobox with a listbox popup).
   Without this file the box is a plain GET form to /search/; with it, after two characters
   the box lists matching titles from /search/suggest/, navigable with the arrow keys,
   Enter to open one, Escape to close. No inline script or style: strict CSP. */
(function () {
  "use strict";

  var MIN_LENGTH = 2;
  var DELAY_MS = 150;

  function setUp(input) {
    var form = input.form;
    var url = input.getAttribute("data-suggest-url");
    if (!form || !url || !window.fetch) return;

    var listId = input.id + "-suggestions";
    var list = document.createElement("ul");
    list.id = listId;
    list.className = "suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Suggestions");
    list.hidden = true;
    var status = document.createElement("p");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    form.appendChild(list);
    form.appendChild(status);
    form.classList.add("has-suggestions");

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", listId);
    input.setAttribute("aria-expanded", "false");

    var timer = null;
    var active = -1;
    var requested = "";

    function options() {
      return list.querySelectorAll("[role=option]");
    }

    function close() {
      list.hidden = true;
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }

    function highlight(index) {
      var items = options();
      if (!items.length) return;
      active = (index + items.length) % items.length;
      for (var i = 0; i < items.length; i++) {
        items[i].setAttribute("aria-selected", i === active ? "true" : "false");
      }
      input.setAttribute("aria-activedescendant", items[active].id);
      items[active].scrollIntoView({ block: "nearest" });
    }

    function render(suggestions) {
      list.textContent = "";
      suggestions.forEach(function (suggestion, index) {
        var item = document.createElement("li");
        item.id = listId + "-" + index;
        item.setAttribute("role", "option");
        item.setAttribute("aria-selected", "false");
        item.setAttribute("data-url", suggestion.url);
        var title = document.createElement("span");
        title.className = "suggestions__title";
        title.textContent = suggestion.title;
        var kind = document.createElement("span");
        kind.className = "suggestions__kind";
        kind.textContent = suggestion.kind;
        item.appendChild(title);
        item.appendChild(kind);
        item.addEventListener("mousedown", function (event) {
          event.preventDefault(); // keep the focus in the box
        });
        item.addEventListener("click", function () {
          window.location.assign(suggestion.url);
        });
        list.appendChild(item);
      });
      active = -1;
      input.removeAttribute("aria-activedescendant");
      if (suggestions.length) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
        status.textContent = suggestions.length + (suggestions.length === 1 ? " suggestion" : " suggestions");
      } else {
        close();
        status.textContent = "";
      }
    }

    function lookUp() {
      var text = input.value.trim();
      if (text.length < MIN_LENGTH) {
        requested = "";
        render([]);
        return;
      }
      if (text === requested) return;
      requested = text;
      fetch(url + "?q=" + encodeURIComponent(text), { headers: { Accept: "application/json" } })
        .then(function (response) {
          return response.ok ? response.json() : { suggestions: [] };
        })
        .then(function (data) {
          if (input.value.trim() === text) render(data.suggestions || []);
        })
        .catch(function () {
          render([]);
        });
    }

    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(lookUp, DELAY_MS);
    });

    input.addEventListener("keydown", function (event) {
      var open = !list.hidden;
      if (event.key === "ArrowDown") {
        event.preventDefault();
        if (!open && options().length) {
          list.hidden = false;
          input.setAttribute("aria-expanded", "true");
        }
        highlight(active + 1);
      } else if (event.key === "ArrowUp") {
        if (open) {
          event.preventDefault();
          highlight(active - 1);
        }
      } else if (event.key === "Enter") {
        if (open && active >= 0) {
          event.preventDefault();
          window.location.assign(options()[active].getAttribute("data-url"));
        }
      } else if (event.key === "Escape") {
        if (open) {
          event.preventDefault();
          close();
        }
      }
    });

    input.addEventListener("blur", close);
  }

  var boxes = document.querySelectorAll("input[data-suggest-url]");
  for (var i = 0; i < boxes.length; i++) setUp(boxes[i]);
})();
