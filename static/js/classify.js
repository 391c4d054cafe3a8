// The admin's classification queue: digits pick the role, letters the polarity (each choice
// shows its key), Enter saves and moves on, the right arrow skips. Without JavaScript the same
// choices have access keys and the form works as it is.
(function () {
  "use strict";
  var form = document.querySelector("form.classify-form");
  if (!form) {
    return;
  }
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) {
      return;
    }
    var target = event.target;
    if (target && target.matches && target.matches("textarea, select, input[type=text], input[type=search]")) {
      return;
    }
    if (event.key === "Enter") {
      event.preventDefault();
      form.requestSubmit();
      return;
    }
    if (event.key === form.dataset.skipKey) {
      var skip = form.querySelector("a.classify-skip");
      if (skip) {
        event.preventDefault();
        window.location.assign(skip.href);
      }
      return;
    }
    var key = event.key.toLowerCase();
    var radios = form.querySelectorAll("input[type=radio][data-key]");
    for (var i = 0; i < radios.length; i++) {
      if (radios[i].dataset.key === key) {
        event.preventDefault();
        radios[i].checked = true;
        radios[i].focus();
        return;
      }
    }
  });
  // Says the keys work from here on; a page still loading its script would drop them.
  form.classList.add("keys-active");
})();
