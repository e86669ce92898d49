// The history pages' small helpers: the score sheet's print button, and the replay's keys
// (← → step back and forward, Home / End jump to the start and the end, P plays or pauses),
// which press the step links htmx already drives. After each step arrives, focus returns to the
// control that was used and what happened is read out. Play steps forward on its own at the
// chosen speed, each step once the last has arrived, and stops at the end; its steps replace the
// browser's history entry rather than add one each, so Back leaves the replay (a step chosen by
// hand still adds one). A step refused as too fast says so in the step's notice line; Play tries
// again at its pace. The replay's chat shows the lines said by the step on screen (each line's
// data-move, the moves made when it was said, against the step's data-made).
(() => {
  "use strict";

  let used = null;
  let playing = false;
  let timer = null;
  /** The step on its way was taken by Play, not chosen by hand. */
  let autoStep = false;

  function press(key) {
    const control = document.querySelector(`#replay-step a[data-key="${key}"]`);
    if (control) {
      used = key;
      control.click();
    }
    return Boolean(control);
  }

  /** The link to the next step: a link, not the disabled span, while there are steps left. */
  function nextStepLink() {
    return document.querySelector('#replay-step a[data-key="ArrowRight"]');
  }

  function playButton() {
    return document.querySelector("[data-replay-play]");
  }

  function delay() {
    return Number(document.querySelector("[data-replay-speed]")?.value) || 1000;
  }

  function setPlaying(on, { afterStepArrives = false } = {}) {
    playing = on;
    clearTimeout(timer);
    const button = playButton();
    if (button) {
      button.setAttribute("aria-pressed", String(on));
      button.textContent = on ? button.dataset.pause : button.dataset.play;
    }
    if (on && !afterStepArrives) {
      timer = setTimeout(stepOn, delay());
    }
  }

  function stepOn() {
    if (!playing || !nextStepLink()) {
      setPlaying(false);
      return;
    }
    autoStep = true;
    nextStepLink().click();
  }

  // Paused while Play's step was on its way: that step is not shown, the one on screen stays.
  document.addEventListener("htmx:before:swap", (event) => {
    if (autoStep && !playing) {
      event.preventDefault();
      autoStep = false;
    }
  });

  document.addEventListener("htmx:before:history:update", (event) => {
    if (autoStep) {
      event.detail.history.type = "replace";
    }
  });

  function showChatSoFar() {
    const step = document.getElementById("replay-step");
    if (!step) {
      return;
    }
    const made = Number(step.dataset.made) || 0;
    for (const line of document.querySelectorAll("[data-match-chat] [data-move]")) {
      line.hidden = Number(line.dataset.move) > made;
    }
  }

  function toggle() {
    if (!playing && !nextStepLink() && press("Home")) {
      // At the end, Play starts again from the first step, and steps on once that step has arrived
      // (on a slow line it can take longer than the chosen speed).
      setPlaying(true, { afterStepArrives: true });
      return;
    }
    setPlaying(!playing);
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-print]")) {
      window.print();
      return;
    }
    if (event.target.closest("[data-replay-play]")) {
      toggle();
      return;
    }
    const control = event.target.closest("#replay-step [data-key]");
    if (control) {
      used = control.dataset.key;
      if (event.isTrusted) {
        setPlaying(false); // a step chosen by hand stops the playing
        autoStep = false;
      }
    }
  });

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    if (event.target.closest("input, select, textarea, [contenteditable]")) {
      return;
    }
    if (!document.getElementById("replay-step")) {
      return;
    }
    if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) {
      event.preventDefault();
      setPlaying(false);
      press(event.key);
    } else if (event.key === "p" || event.key === "P") {
      event.preventDefault();
      toggle();
    }
  });

  // Reset here rather than on the history update: a step refused as too fast (429) is shown in the
  // step's notice line, with no history update.
  document.addEventListener("htmx:after:swap", () => {
    autoStep = false;
    const step = document.getElementById("replay-step");
    if (!step) {
      return;
    }
    showChatSoFar();
    const announce = document.getElementById("replay-announce");
    const what = step.querySelector(".replay-what");
    if (announce && what && !playing) {
      announce.textContent = what.textContent.replace(/\s+/g, " ").trim();
    }
    if (used && !playing) {
      step.querySelector(`[data-key="${used}"]`)?.focus();
    }
    used = null;
    if (playing) {
      clearTimeout(timer);
      timer = setTimeout(stepOn, delay());
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showChatSoFar);
  } else {
    showChatSoFar();
  }
})();
