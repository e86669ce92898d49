// The table chat's drawer: opened and closed by its button (or C), with the count of lines unread.
(() => {
  "use strict";
  function setUp(chat) {
    if (chat.dataset.ready) return;
    chat.dataset.ready = "1";
    const toggle = chat.querySelector(".chat-toggle");
    const panel = chat.querySelector(".chat-panel");
    const unread = chat.querySelector(".chat-unread");
    let count = 0;
    const show = (open) => {
      panel.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      if (open) { count = 0; unread.hidden = true; }
    };
    toggle.addEventListener("click", () => show(panel.hidden));
    new MutationObserver((changes) => {
      const added = changes.some((change) => [...change.addedNodes].some((node) => node.nodeType === 1 && node.matches(".chat-line")));
      if (added && panel.hidden) { count += 1; unread.textContent = String(count); unread.hidden = false; }
    }).observe(chat, { childList: true, subtree: true });
  }
  const start = () => document.querySelectorAll("#chat").forEach(setUp);
  document.addEventListener("DOMContentLoaded", start);
  start();
})();
