// The history pages' small helpers: the score sheet's print button, and the replay's keys
// (← → step back and forward, Home / End jump to the start and the end), which press the
// step links htmx already drives. After each step arrives, focus returns to the control that
// was used and what happened is read out.
(() => {
  "use strict";

  let used = null;

  function press(key) {
    const control = document.querySelector(`#replay-step a[data-key="${key}"]`);
    if (control) {
      used = key;
      control.click();
    }
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-print]")) {
      window.print();
      return;
    }
    const control = event.target.closest("#replay-step [data-key]");
    if (control) {
      used = control.dataset.key;
    }
  });

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    if (event.target.closest("input, select, textarea, [contenteditable]")) {
      return;
    }
    if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key) && document.getElementById("replay-step")) {
      event.preventDefault();
      press(event.key);
    }
  });

  document.addEventListener("htmx:after:swap", () => {
    const step = document.getElementById("replay-step");
    if (!step) {
      return;
    }
    const announce = document.getElementById("replay-announce");
    const what = step.querySelector(".replay-what");
    if (announce && what) {
      announce.textContent = what.textContent.replace(/\s+/g, " ").trim();
    }
    if (used) {
      step.querySelector(`[data-key="${used}"]`)?.focus();
      used = null;
    }
  });
})();
