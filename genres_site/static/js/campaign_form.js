/* New-campaign form: the system checkboxes follow the chosen dataset. Each checkbox carries the
 * ids of the datasets its system has outputs in (data-datasets); the others are hidden and
 * unchecked. Without this script every system shows, labelled with its datasets, and the server
 * refuses a system that has no outputs in the dataset, by name. */
(function () {
  "use strict";

  const dataset = document.getElementById("id_dataset");
  const list = document.getElementById("id_systems");
  if (!dataset || !list) {
    return;
  }
  const boxes = Array.from(list.querySelectorAll("input[type=checkbox][data-datasets]"));
  const note = document.createElement("p");
  note.className = "systems-note muted small";
  note.setAttribute("aria-live", "polite");
  list.after(note);

  function follow() {
    let shown = 0;
    boxes.forEach(function (box) {
      const fits = dataset.value !== "" && box.dataset.datasets.split(" ").indexOf(dataset.value) !== -1;
      const option = box.closest("div") || box.parentElement;
      option.hidden = !fits;
      if (!fits) {
        box.checked = false;
      }
      shown += fits ? 1 : 0;
    });
    if (dataset.value === "") {
      note.textContent = "Choose a dataset: its systems appear here.";
    } else if (shown === 0) {
      note.textContent = "No system has outputs in this dataset yet: upload some first, or compare with the ground truth only.";
    } else {
      note.textContent = shown + " system" + (shown === 1 ? "" : "s") + " with outputs in this dataset.";
    }
  }

  dataset.addEventListener("change", follow);
  follow();
})();
