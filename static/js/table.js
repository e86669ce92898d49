// The table's small helpers: tap a picked card again to put it back, the turn clock,
// and reloading a waiting room once its match has started. Everything else is htmx.
(() => {
  "use strict";

  // A radio cannot be unchecked by clicking it; a card in the hand can.
  let pickedBeforeClick = null;
  document.addEventListener("pointerdown", (event) => {
    const input = event.target.closest(".hand-card")?.querySelector("input[name=card]");
    pickedBeforeClick = input && input.checked ? input : null;
  });
  document.addEventListener("click", (event) => {
    const input = event.target.closest(".hand-card")?.querySelector("input[name=card]");
    if (input && input === pickedBeforeClick) {
      input.checked = false;
      event.preventDefault();
    }
    pickedBeforeClick = null;
  });

  function tickClocks() {
    for (const clock of document.querySelectorAll(".clock[data-deadline]")) {
      const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
      clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      clock.classList.toggle("is-short", left <= 10);
    }
  }
  setInterval(tickClocks, 1000);

  function reloadIfStarted() {
    if (document.querySelector("[data-reload]")) {
      window.location.reload();
    }
  }

  document.addEventListener("htmx:after:swap", () => {
    tickClocks();
    reloadIfStarted();
  });
  document.addEventListener("DOMContentLoaded", tickClocks);
})();
