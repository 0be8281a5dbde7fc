// governanced's web page works without this script; it only saves clicks.
// - The datasets table's menus apply as soon as one changes.
// - "/" moves the focus to the dataset search, as on many sites.
(function () {
  "use strict";
  var filters = document.querySelector("form.filters");
  if (filters) {
    filters.addEventListener("change", function (e) {
      if (e.target && e.target.tagName === "SELECT") {
        filters.requestSubmit ? filters.requestSubmit() : filters.submit();
      }
    });
  }
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) {
      return;
    }
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) {
      return;
    }
    var input = document.getElementById("lookup-name");
    if (input) {
      e.preventDefault();
      input.focus();
      input.select();
    }
  });
})();
