// The authors inline of a paper's admin page: "Move up" and "Move down" buttons on each row.
// The rows' order is the authors' order: each row's position input is renumbered from it, after
// every move and before the form is sent. Without JavaScript, editors type
// the positions themselves.
(function () {
  "use strict";

  function rowsOf(group) {
    return Array.from(group.querySelectorAll("tbody tr.form-row:not(.empty-form)"));
  }

  // Rows with a name are numbered in order; an empty row keeps its initial position, so that
  // the server still sees it as untouched (and does not ask for a name).
  function renumber(group) {
    var next = 0;
    rowsOf(group).forEach(function (row) {
      var position = row.querySelector("input[name$='-position']");
      var name = row.querySelector("input[name$='-name']");
      if (!position) {
        return;
      }
      if (name && name.value.trim()) {
        position.value = String(next);
        next += 1;
      } else {
        position.value = position.defaultValue;
      }
    });
  }

  function addButtons(group, row) {
    var cell = row.querySelector("td.field-position");
    if (!cell || cell.querySelector(".author-order")) {
      return;
    }
    [["\u2191", "Move up", -1], ["\u2193", "Move down", 1]].forEach(function (spec) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "author-order";
      button.textContent = spec[0];
      button.title = spec[1];
      button.setAttribute("aria-label", spec[1]);
      button.addEventListener("click", function () {
        var rows = rowsOf(group);
        var other = rows[rows.indexOf(row) + spec[2]];
        if (!other) {
          return;
        }
        if (spec[2] < 0) {
          other.before(row);
        } else {
          other.after(row);
        }
        renumber(group);
        button.focus();
      });
      cell.appendChild(button);
    });
  }

  function init() {
    var group = document.getElementById("authorships-group");
    if (!group) {
      return;
    }
    rowsOf(group).forEach(function (row) {
      addButtons(group, row);
    });
    document.addEventListener("formset:added", function (event) {
      if (group.contains(event.target)) {
        addButtons(group, event.target);
        renumber(group);
      }
    });
    var form = group.closest("form");
    if (form) {
      form.addEventListener("submit", function () {
        renumber(group);
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
