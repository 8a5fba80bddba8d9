/* A link marked data-back goes back in the history (a refused form as it was filled in);
   without JavaScript, or with nothing to go back to, it follows its href. */
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a[data-back]");
  if (link && window.history.length > 1) {
    event.preventDefault();
    window.history.back();
  }
});
