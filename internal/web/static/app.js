// Progressive enhancement only: every page works without this file.
// On the review page, a checkbox hides tools without findings.
document.addEventListener("DOMContentLoaded", function () {
  var toggle = document.getElementById("only-flagged");
  if (!toggle) { return; }
  toggle.parentElement.hidden = false;
  toggle.addEventListener("change", function () {
    document.querySelectorAll(".tool").forEach(function (el) {
      el.hidden = toggle.checked && !el.classList.contains("flagged");
    });
  });
});
