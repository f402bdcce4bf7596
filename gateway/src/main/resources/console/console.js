// sqloop review console: the copy button. Served as a file (the Content-Security-Policy allows no inline script).
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent).then(function () {
    button.textContent = "Copied";
  }, function () {
    button.textContent = "Copy failed";
  });
});
