// The triple-check page: Y / N answer "supported?", 1 to 5 the fact count, Enter saves,
// P opens the triple answered before, S skips this one to the end of the queue; after a
// practice answer, Enter goes on to the next practice triple. Staff's adjudication page uses
// the same keys, P for the disagreement before and J for the next one.
// The form works without this script; it adds the keys and the time spent on the triple.
(function () {
  "use strict";
  var form = document.getElementById("triple-form");
  if (!form) return;
  var opened = Date.now();

  function choose(name, value) {
    var input = form.querySelector('input[name="' + name + '"][value="' + value + '"]');
    if (input) {
      input.checked = true;
      input.focus();
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text"))) return;
    var key = event.key.toLowerCase();
    // Enter on a link or a button (Previous, Skip) does what that one does.
    if (key === "enter" && target && (target.tagName === "A" || target.tagName === "BUTTON")) return;
    if (key === "y") choose("supported", "yes");
    else if (key === "n") choose("supported", "no");
    else if (/^[1-5]$/.test(key)) choose("facts", key);
    else if (key === "enter" && document.getElementById("practice-next")) document.getElementById("practice-next").click();
    else if (key === "enter") form.requestSubmit();
    else if (key === "p" && document.getElementById("previous-triple")) document.getElementById("previous-triple").click();
    else if (key === "s" && document.getElementById("skip-form")) document.getElementById("skip-form").requestSubmit();
    else if (key === "j" && document.getElementById("next-disagreement")) document.getElementById("next-disagreement").click();
    else return;
    event.preventDefault();
  });

  form.addEventListener("submit", function () {
    if (form.elements.seconds) form.elements.seconds.value = ((Date.now() - opened) / 1000).toFixed(1);
  });
})();
