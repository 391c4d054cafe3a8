/* Light or dark: the system setting (prefers-color-scheme, in site.css) unless the reader
   chose one with the header's switch, remembered in localStorage. Loaded in <head> without
   defer, so the remembered theme is set on <html> before the first paint (no flash); the
   switch is wired once the page is parsed. No inline script: strict CSP. */
(function () {
  "use strict";

  var KEY = "theme";
  var root = document.documentElement;
  var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : null;
    } catch (error) {
      return null; // storage blocked: follow the system
    }
  }

  function current() {
    return stored() || (system && system.matches ? "dark" : "light");
  }

  function apply(theme) {
    if (theme) root.setAttribute("data-theme", theme);
    else root.removeAttribute("data-theme");
  }

  apply(stored());

  function wire() {
    var button = document.querySelector("[data-theme-toggle]");
    if (!button) return;

    function label() {
      var dark = current() === "dark";
      button.setAttribute("aria-pressed", dark ? "true" : "false");
    }

    button.hidden = false;
    label();
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      try {
        window.localStorage.setItem(KEY, next);
      } catch (error) {
        /* not remembered, still applied */
      }
      apply(next);
      label();
    });
    if (system && system.addEventListener) system.addEventListener("change", label);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
