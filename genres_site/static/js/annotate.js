/* Item page of GENRES Arena, and the practice round on the same page: keyboard shortcuts, saving
 * with fetch, unsaved choices and comment kept as a draft in localStorage until saved, the
 * guidelines panel, asking before a skip would leave them behind, highlighting of a triple's
 * subject and object in the source text and of its near matches with the gold, and the sticky
 * text's height for the headers that stick below it.
 * The page works as a plain form without this script; everything here is an enhancement. */
(function () {
  "use strict";

  const root = document.getElementById("annotate");
  const form = root && root.querySelector("form.judgement-form");
  if (!root || !form) {
    return;
  }

  // A practice pair has no public id: its draft is kept under its campaign, attempt and number.
  const storageKey = "genres-annotate:" + (root.dataset.publicId || root.dataset.draftKey);
  // A practice answer's page: Enter and N go on to the next pair.
  const nextUrl = root.dataset.nextUrl;
  const source = document.getElementById("source-text");
  const sourceText = source.textContent;
  // Locked aspects (final once a text's reference triples are shown) are neither chosen nor sent.
  const fieldsets = Array.from(form.querySelectorAll("fieldset.aspect:not([disabled])"));
  const saveButton = form.querySelector("button[type=submit]");
  const status = form.querySelector(".save-status");
  const shortcuts = document.getElementById("shortcuts");
  // Digits only: the arrow keys, Page Up/Down and Space stay with scrolling.
  const SIDE_BY_KEY = { "1": "left", "2": "tie", "3": "right" };
  const position = form.querySelector(".aspect-position");
  const comment = form.elements.comment;
  const commentBox = document.getElementById("comment-box");
  const guidelines = document.getElementById("guidelines-panel");
  const skipConfirm = document.getElementById("skip-confirm");
  let current = 0;
  let saving = false;

  // ---- Time on the item: only while the tab is visible, reset after every successful save.
  // Sent to the millisecond: a keyboard annotator can finish a completeness-only item in under
  // 50 ms, which one decimal would record as no time at all.
  let visibleMs = 0;
  let visibleSince = document.visibilityState === "visible" ? performance.now() : null;
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      visibleSince = performance.now();
    } else if (visibleSince !== null) {
      visibleMs += performance.now() - visibleSince;
      visibleSince = null;
    }
  });
  function secondsSinceLastSave() {
    const running = visibleSince === null ? 0 : performance.now() - visibleSince;
    return (visibleMs + running) / 1000;
  }
  function restartClock() {
    visibleMs = 0;
    visibleSince = document.visibilityState === "visible" ? performance.now() : null;
  }

  // ---- Choices and the current aspect.
  function choices() {
    const labels = {};
    fieldsets.forEach(function (fieldset) {
      const checked = fieldset.querySelector("input[type=radio]:checked");
      if (checked) {
        labels[fieldset.dataset.aspect] = checked.value;
      }
    });
    return labels;
  }

  function setCurrent(index, scroll) {
    current = Math.max(0, Math.min(index, fieldsets.length));
    fieldsets.forEach(function (fieldset, position) {
      fieldset.classList.toggle("current", position === current);
    });
    if (!saveButton) {
      return; // a practice answer: nothing left to choose
    }
    saveButton.classList.toggle("ready", current === fieldsets.length);
    root.classList.toggle("all-chosen", current === fieldsets.length);
    position.textContent =
      current < fieldsets.length ? "Aspect " + (current + 1) + " of " + fieldsets.length : "Ready to save";
    if (scroll) {
      const target = current < fieldsets.length ? fieldsets[current] : saveButton;
      target.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  function firstUnanswered() {
    const index = fieldsets.findIndex(function (fieldset) {
      return !fieldset.querySelector("input[type=radio]:checked");
    });
    return index === -1 ? fieldsets.length : index;
  }

  function choose(side) {
    if (current >= fieldsets.length) {
      return;
    }
    const radio = fieldsets[current].querySelector('input[type=radio][value="' + side + '"]');
    radio.checked = true;
    changed();
    setCurrent(current + 1, true);
  }

  // ---- Unsaved choices and comment: a draft that survives a reload, a failed request or a skip,
  // kept until the save that stores them. What the page was opened with (or last saved) is not a draft.
  let savedState = JSON.stringify(currentState());
  function currentState() {
    return { labels: choices(), comment: comment ? comment.value : "" };
  }
  function hasUnsaved() {
    return JSON.stringify(currentState()) !== savedState;
  }
  function remember() {
    if (!hasUnsaved()) {
      forget();
      return;
    }
    try {
      const draft = currentState();
      draft.version = form.elements.version ? form.elements.version.value : "";
      localStorage.setItem(storageKey, JSON.stringify(draft));
    } catch (error) {
      // Storage full or disabled: the choices are still in the form.
    }
  }
  function forget() {
    try {
      localStorage.removeItem(storageKey);
    } catch (error) {
      // Nothing stored.
    }
  }
  function restoreChoices(labels) {
    let restored = false;
    fieldsets.forEach(function (fieldset) {
      const side = labels[fieldset.dataset.aspect];
      const radio = Array.from(fieldset.querySelectorAll("input[type=radio]")).find(function (input) {
        return input.value === side;
      });
      if (radio && !radio.checked) {
        radio.checked = true;
        restored = true;
      }
    });
    return restored;
  }
  function restore() {
    let stored = null;
    try {
      stored = JSON.parse(localStorage.getItem(storageKey) || "null");
    } catch (error) {
      return false;
    }
    if (!stored || typeof stored.labels !== "object" || stored.labels === null) {
      return false;
    }
    const choicesBack = restoreChoices(stored.labels);
    const commentBack = Boolean(comment && typeof stored.comment === "string" && stored.comment !== comment.value);
    if (commentBack) {
      comment.value = stored.comment;
      commentBox.open = true;
    }
    if (choicesBack) {
      const what = commentBack ? "Unsaved choices and comment" : "Unsaved choices";
      setStatus(what + " restored. Press Enter to save them.", "warn");
    } else if (commentBack) {
      setStatus("Unsaved comment restored. Press Ctrl+Enter to save it.", "warn");
    } else {
      forget();
    }
    return choicesBack || commentBack;
  }

  function changed() {
    remember();
    setStatus("Not saved yet.", "pending");
  }

  // ---- Saving.
  function setStatus(message, tone, retry) {
    status.replaceChildren(document.createTextNode(message));
    status.className = "save-status " + (tone || "");
    if (retry) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link retry";
      button.textContent = "Retry";
      button.addEventListener("click", save);
      status.append(" ", button);
    }
  }

  // After a save that stays on the page (a pair reopened, a change that finishes nothing): the
  // way on to the next pair, by link or by N.
  function offerNextPair(message) {
    setStatus(message, "good");
    const link = document.createElement("a");
    link.href = root.dataset.continueUrl;
    link.className = "next-pair";
    link.append("Next pair ");
    const key = document.createElement("kbd");
    key.textContent = "N";
    link.append(key);
    status.append(" ", link);
    setCurrent(fieldsets.length, false);
  }

  function save() {
    if (saving || !saveButton) {
      return;
    }
    saving = true;
    saveButton.disabled = true;
    setStatus("Saving…", "pending");
    form.elements.seconds.value = secondsSinceLastSave().toFixed(3);
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.json().then(function (data) {
          return { response: response, data: data };
        });
      })
      .then(function (result) {
        const data = result.data;
        if (result.response.ok) {
          savedState = JSON.stringify(currentState());
          forget();
          restartClock();
          if (form.elements.version) {
            form.elements.version.value = data.version;
          }
          if (data.next_url) {
            // A stage of this pair is finished: straight to what comes next (the next pair, or
            // completeness once every pair of the text has its four aspects; a practice answer).
            window.location.assign(data.next_url);
          } else {
            offerNextPair(data.message);
          }
        } else if (result.response.status === 409) {
          if (form.elements.version) {
            form.elements.version.value = data.version;
          }
          remember();
          setStatus(data.message, "warn");
        } else {
          // A refusal before the view (a body over the size limit) answers {"error": ...}.
          setStatus(data.message || data.error || "Not saved.", "bad");
        }
      })
      .catch(function () {
        remember();
        setStatus("Not saved — your choices are kept on this page.", "bad", true);
      })
      .finally(function () {
        saving = false;
        saveButton.disabled = false;
      });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    save();
  });

  form.addEventListener("change", function (event) {
    const fieldset = event.target.closest("fieldset.aspect");
    if (fieldset) {
      changed();
      setCurrent(fieldsets.indexOf(fieldset) + 1, true);
    }
  });

  if (comment) {
    comment.addEventListener("input", changed);
  }

  function focusChoices() {
    if (!fieldsets.length) {
      return;
    }
    const fieldset = fieldsets[Math.min(current, fieldsets.length - 1)];
    const radio = fieldset.querySelector("input[type=radio]:checked") || fieldset.querySelector("input[type=radio]");
    radio.focus({ preventScroll: true });
    fieldset.scrollIntoView({ block: "nearest" });
  }

  function openComment() {
    if (!comment) {
      return;
    }
    commentBox.open = true;
    comment.focus();
    comment.setSelectionRange(comment.value.length, comment.value.length);
  }

  // ---- The guidelines panel: G or the bar's button opens and closes it, Escape closes it.
  let focusBeforeGuidelines = null;
  function toggleGuidelines() {
    if (guidelines.hidden) {
      focusBeforeGuidelines = document.activeElement;
      guidelines.hidden = false;
      guidelines.focus({ preventScroll: true });
    } else {
      guidelines.hidden = true;
      if (focusBeforeGuidelines && focusBeforeGuidelines !== document.body && document.contains(focusBeforeGuidelines)) {
        focusBeforeGuidelines.focus({ preventScroll: true });
      } else {
        focusChoices();
      }
    }
  }
  document.querySelectorAll("[data-show-guidelines]").forEach(function (control) {
    control.addEventListener("click", function (event) {
      event.preventDefault(); // the bar's link opens the guidelines page where this script does not run
      toggleGuidelines();
    });
  });

  form.querySelectorAll("[data-aspect-step]").forEach(function (button) {
    button.addEventListener("click", function () {
      setCurrent(current + Number(button.dataset.aspectStep), true);
    });
  });

  // ---- Keyboard.
  function isInteractive(element) {
    return Boolean(element.closest("a, button, summary, textarea, select, input:not([type=radio])"));
  }

  const skipForm = document.getElementById("skip-form");
  const previousItem = document.getElementById("previous-item");
  const SCROLL_STEP = 60;

  function scrollTextBox(direction) {
    source.scrollBy({ top: direction * source.clientHeight * 0.8, behavior: "smooth" });
  }

  function toggleShortcuts() {
    if (shortcuts.open) {
      shortcuts.close();
    } else {
      shortcuts.showModal();
    }
  }

  // ---- Skipping with unsaved input asks first, in the page: Enter or Escape keeps the pair
  // (the focused button), "Skip anyway" skips; the draft stays in storage for when the text is back.
  function skip() {
    if (hasUnsaved()) {
      remember();
      skipConfirm.returnValue = "";
      skipConfirm.showModal();
    } else {
      skipForm.submit();
    }
  }
  if (skipForm) {
    skipForm.addEventListener("submit", function (event) {
      event.preventDefault();
      skip();
    });
    skipConfirm.addEventListener("close", function () {
      if (skipConfirm.returnValue === "skip") {
        skipForm.submit();
      } else {
        focusChoices();
      }
    });
  }

  // The next pair: on a pair with saved choices, nothing unsaved and every aspect passed, N leaves it.
  function goOn() {
    if (nextUrl) {
      window.location.assign(nextUrl);
    } else if (current >= fieldsets.length && !hasUnsaved() && Object.keys(JSON.parse(savedState).labels).length) {
      window.location.assign(root.dataset.continueUrl);
    } else {
      setCurrent(current + 1, true);
    }
  }

  function dialogOpen() {
    return shortcuts.open || (skipConfirm && skipConfirm.open);
  }

  function keyInTextarea(event) {
    if (event.key === "Escape") {
      // Leave the comment box, keeping what was typed (the draft is stored as it is typed).
      event.preventDefault();
      focusChoices();
    }
  }

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && !dialogOpen()) {
      event.preventDefault();
      if (nextUrl) {
        window.location.assign(nextUrl);
      } else {
        save();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (event.target.closest && event.target.closest("textarea")) {
      // Writing a comment: every other key is the comment's.
      keyInTextarea(event);
      return;
    }
    if (event.key === "Escape" && !guidelines.hidden && !dialogOpen()) {
      event.preventDefault();
      toggleGuidelines();
      return;
    }
    if (event.key === "?") {
      event.preventDefault();
      toggleShortcuts();
      return;
    }
    if (dialogOpen()) {
      return;
    }
    const onRadio = event.target.matches && event.target.matches("input[type=radio]");
    if (onRadio && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      // A focused radio would take these to change the choice: they scroll, as everywhere else.
      event.preventDefault();
      window.scrollBy({ top: event.key === "ArrowUp" ? -SCROLL_STEP : SCROLL_STEP });
      return;
    }
    const side = SIDE_BY_KEY[event.key];
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (side) {
      event.preventDefault();
      choose(side);
    } else if (event.key === "Backspace") {
      event.preventDefault();
      setCurrent(current - 1, true);
    } else if (key === "n") {
      event.preventDefault();
      goOn();
    } else if (key === "t") {
      event.preventDefault();
      scrollTextBox(event.shiftKey ? -1 : 1);
    } else if (key === "g") {
      event.preventDefault();
      toggleGuidelines();
    } else if (key === "c" && comment) {
      event.preventDefault();
      openComment();
    } else if (key === "s" && skipForm) {
      event.preventDefault();
      skip();
    } else if (key === "p" && previousItem) {
      event.preventDefault();
      window.location.assign(previousItem.href);
    } else if (event.key === "Enter" && !isInteractive(event.target)) {
      event.preventDefault();
      if (nextUrl) {
        window.location.assign(nextUrl);
      } else {
        save();
      }
    }
  });

  document.querySelectorAll("[data-show-shortcuts]").forEach(function (button) {
    button.addEventListener("click", toggleShortcuts);
  });

  // ---- Hovering a triple marks its subject and object in the source text. The text is rebuilt
  // from text nodes and <mark> elements filled with textContent: no HTML is ever parsed.

  function escapeRegExp(value) {
    return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  function occurrences(term, className) {
    const found = [];
    const needle = term.trim();
    if (!needle) {
      return found;
    }
    const pattern = new RegExp(escapeRegExp(needle), "giu");
    let match;
    while ((match = pattern.exec(sourceText)) !== null) {
      found.push({ start: match.index, end: match.index + match[0].length, className: className });
    }
    return found;
  }

  function highlight(triple) {
    const ranges = occurrences(triple.querySelector(".s").textContent, "hl-subject")
      .concat(occurrences(triple.querySelector(".o").textContent, "hl-object"))
      .sort(function (first, second) {
        return first.start - second.start || second.end - first.end;
      });
    const fragment = document.createDocumentFragment();
    let position = 0;
    ranges.forEach(function (range) {
      if (range.start < position) {
        return; // overlaps a longer match already marked
      }
      fragment.append(document.createTextNode(sourceText.slice(position, range.start)));
      const mark = document.createElement("mark");
      mark.className = range.className;
      mark.textContent = sourceText.slice(range.start, range.end);
      fragment.append(mark);
      position = range.end;
    });
    fragment.append(document.createTextNode(sourceText.slice(position)));
    source.replaceChildren(fragment);
    triple.classList.toggle("not-in-text", ranges.length === 0);
    const first = source.querySelector("mark");
    if (first) {
      // The text box scrolls on its own (never the page) to the first mark, if it is out of view.
      const top = first.offsetTop;
      if (top < source.scrollTop || top + first.offsetHeight > source.scrollTop + source.clientHeight) {
        source.scrollTop = Math.max(0, top - source.clientHeight / 3);
      }
    }
  }

  // ---- Near matches: an extracted triple names (data-gold) the gold triples it soft-matches,
  // by their numbers in the gold list; a gold triple's matches are the triples that name it.
  const goldTriples = Array.from(document.querySelectorAll(".gold-card li.triple"));
  const sideTriples = Array.from(document.querySelectorAll(".side li.triple[data-gold]"));

  function goldNumbers(triple) {
    return triple.dataset.gold.split(" ");
  }

  function nearMatches(triple) {
    const goldIndex = goldTriples.indexOf(triple);
    if (goldIndex !== -1) {
      const number = String(goldIndex + 1);
      return sideTriples.filter(function (candidate) {
        return goldNumbers(candidate).indexOf(number) !== -1;
      });
    }
    if (!triple.dataset.gold) {
      return [];
    }
    return goldNumbers(triple).map(function (number) {
      return goldTriples[Number(number) - 1];
    });
  }

  function markMatches(triple) {
    const matches = nearMatches(triple);
    matches.forEach(function (match) {
      match.classList.add("near-match");
    });
    if (goldTriples.length) {
      triple.classList.add(matches.length ? "has-match" : "no-match");
    }
  }

  function clearHighlight() {
    source.textContent = sourceText;
    document.querySelectorAll(".near-match, .has-match, .no-match").forEach(function (element) {
      element.classList.remove("near-match", "has-match", "no-match");
    });
  }

  function point(triple) {
    clearHighlight();
    highlight(triple);
    markMatches(triple);
  }

  document.querySelectorAll("li.triple").forEach(function (triple) {
    triple.addEventListener("mouseenter", function () {
      point(triple);
    });
    triple.addEventListener("focus", function () {
      point(triple);
    });
    triple.addEventListener("mouseleave", clearHighlight);
    triple.addEventListener("blur", clearHighlight);
  });

  // ---- The text stays in view above the triples; the extractions' headers stick just below it,
  // and on a phone the page leaves room for the choices docked at the bottom.
  const textCard = document.getElementById("text-card");
  const panel = document.getElementById("annotate-panel");
  if (window.ResizeObserver) {
    const sizes = new ResizeObserver(function () {
      root.style.setProperty("--text-card-height", textCard.offsetHeight + "px");
      root.style.setProperty("--panel-height", panel.offsetHeight + "px");
    });
    sizes.observe(textCard);
    sizes.observe(panel);
  }

  root.classList.add("enhanced");
  if (status) {
    restore(); // a practice answer's page has no choices left to restore
  }
  // A reopened item with every aspect answered starts at its first one, so that the question
  // (docked at the bottom on a phone) is there to change; Enter saves from anywhere.
  const unanswered = firstUnanswered();
  setCurrent(unanswered === fieldsets.length ? 0 : unanswered, false);
})();
