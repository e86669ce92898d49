// The table chat's drawer: opened and closed by its button, its × or the C key (Escape closes it),
// with the count of lines unread while it is shut. On the table it is a panel over the upper part of
// the felt that stops above the hand (measured here, as the hand grows and shrinks); on a large
// screen it is a side panel over the log. New lines are read aloud from one polite region of its
// own (the newest line, "author: text"), so a reconnect that brings the logs back whole is not read
// out in bulk. After a send the server gives back an empty message box: the focus stays in it.
(() => {
  "use strict";

  const WATCHERS_KEY = "septica:chat-watchers";
  const isTyping = (element) =>
    Boolean(element?.closest?.("input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), textarea, select, [contenteditable]:not([contenteditable=false])"));

  function setUp(chat) {
    if (chat.dataset.ready) return;
    chat.dataset.ready = "1";
    const toggle = chat.querySelector(".chat-toggle");
    const panel = chat.querySelector(".chat-panel");
    const unread = chat.querySelector(".chat-unread");
    const announcer = chat.querySelector("#chat-announcer");
    const table = chat.closest(".play");
    const seated = "seated" in chat.dataset;
    let count = 0;

    // ---- Which rooms show: the seated see the spectators' only if they ask (kept in this browser) ----

    const watchersShown = () => !seated || localStorage.getItem(WATCHERS_KEY) === "1";
    function applyRooms() {
      chat.classList.toggle("shows-watchers", watchersShown());
      for (const box of chat.querySelectorAll("[data-chat-watchers]")) box.checked = watchersShown();
      // The template's logs are live regions (for a page without this script); here the announcer speaks.
      for (const log of chat.querySelectorAll(".chat-log")) log.setAttribute("aria-live", "off");
    }
    chat.addEventListener("change", (event) => {
      if (!event.target.matches("[data-chat-watchers]")) return;
      localStorage.setItem(WATCHERS_KEY, event.target.checked ? "1" : "0");
      applyRooms();
      scrollDown();
    });

    // ---- Where the panel goes: never over the hand ----

    function place() {
      if (!table || panel.hidden) return;
      const play = table.getBoundingClientRect();
      const bar = table.querySelector(".table-bar")?.getBoundingClientRect();
      const hand = document.getElementById("hand-area")?.getBoundingClientRect();
      const top = bar ? bar.bottom - play.top + 4 : 0;
      let bottom = 0;
      let right = 0;
      const large = window.matchMedia("(min-width: 900px) and (min-height: 620px)").matches;
      if (hand && hand.height && !large) {
        const beside = hand.left >= play.left + play.width / 2 - 1 && hand.top < play.top + play.height / 2;
        if (beside) right = play.right - hand.left + 6; // a phone on its side: the hand on the right
        else if (hand.top > top) bottom = Math.max(0, play.bottom - hand.top + 6);
      }
      chat.style.setProperty("--chat-top", `${Math.round(top)}px`);
      chat.style.setProperty("--chat-bottom", `${Math.round(bottom)}px`);
      chat.style.setProperty("--chat-right", `${Math.round(right)}px`);
    }
    function roomForToggle() {
      if (table && toggle.offsetWidth) table.style.setProperty("--chat-toggle-room", `${toggle.offsetWidth + 6}px`);
    }
    window.addEventListener("resize", () => { roomForToggle(); place(); });
    document.addEventListener("table:updated", place);
    if (table && "ResizeObserver" in window) new ResizeObserver(() => place()).observe(table);

    // ---- Open and shut ----

    const scrollDown = () => {
      const logs = chat.querySelector(".chat-logs");
      if (logs) logs.scrollTop = logs.scrollHeight;
    };
    function showCount() {
      unread.hidden = count === 0;
      unread.querySelector(".chat-unread-count").textContent = String(count);
      unread.querySelector(".chat-unread-label").textContent = (chat.dataset.unreadLabel || "%(count)s").replace("%(count)s", String(count));
    }
    function show(open, { focus = false } = {}) {
      const hadFocus = panel.contains(document.activeElement);
      panel.hidden = !open;
      chat.classList.toggle("is-open", open);
      toggle.setAttribute("aria-expanded", String(open));
      if (open) {
        count = 0;
        showCount();
        place();
        scrollDown();
        if (focus) (chat.querySelector("#chat-text") ?? chat.querySelector(".chat-phrase") ?? panel.querySelector("button"))?.focus();
      } else if (hadFocus) {
        toggle.focus();
      }
    }
    toggle.addEventListener("click", () => show(panel.hidden));
    chat.querySelector(".chat-close")?.addEventListener("click", () => show(false));

    // C toggles (not while typing); Escape in the chat closes its open menu, else the panel. Escape
    // elsewhere closes the panel only when the table has nothing of its own to cancel.
    window.addEventListener(
      "keydown",
      (event) => {
        if (event.ctrlKey || event.metaKey || event.altKey) return;
        const inChat = chat.contains(event.target);
        if (event.key === "Escape") {
          if (inChat) {
            const menu = event.target.closest?.("details[open]") ?? chat.querySelector("details[open]");
            if (menu) {
              menu.open = false;
              menu.querySelector("summary").focus();
            } else if (!panel.hidden) {
              show(false);
              toggle.focus();
            }
            event.preventDefault();
            return;
          }
          const busy = document.querySelector(".play details[open], #hand-area input[name=card]:checked");
          if (!panel.hidden && !busy) show(false);
          return;
        }
        if (event.key.toLowerCase() === "c" && !event.shiftKey && !isTyping(event.target)) {
          event.preventDefault();
          show(panel.hidden, { focus: true });
        }
      },
      true,
    );

    // ---- Sending: Enter sends the typed message; a phrase sent keeps what was typed ----

    let kept = null;
    let refocusOn = null;
    chat.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.isComposing || !event.target.matches("#chat-text")) return;
      event.preventDefault();
      const send = chat.querySelector(".chat-send");
      if (send) event.target.form.requestSubmit(send);
    });
    chat.addEventListener(
      "submit",
      (event) => {
        if (!event.target.matches("#chat-form")) return;
        const phrase = event.submitter?.name === "phrase" ? event.submitter.value : null;
        kept = phrase ? (chat.querySelector("#chat-text")?.value ?? "") : "";
        refocusOn = phrase ? `.chat-phrase[value="${phrase}"]` : "#chat-text";
      },
      true,
    );

    function afterComposer() {
      const input = chat.querySelector("#chat-text");
      if (input && kept) input.value = kept;
      kept = null;
      if (!refocusOn || panel.hidden) return;
      const active = document.activeElement;
      if (active && active !== document.body && active.isConnected && !active.closest("#hand-area")) return;
      chat.querySelector(refocusOn)?.focus();
    }
    document.addEventListener("htmx:ws:after:message:incoming", () => {
      // After table.js, which may have given the focus back to the hand when the message box went.
      if (refocusOn && document.activeElement?.closest?.("#hand-area") && !panel.hidden) afterComposer();
      place();
    });

    // ---- What arrives: a new line (counted, read aloud), the logs or the message box anew ----

    function announce(line) {
      const author = line.querySelector(".chat-author")?.textContent.trim();
      const text = line.querySelector(".chat-text")?.textContent.trim();
      announcer.textContent = author ? `${author}: ${text}` : text;
    }
    const shown = (line) => line.closest(".chat-watchers") === null || watchersShown();

    new MutationObserver((changes) => {
      let fresh = 0;
      let newest = null;
      let swapped = false;
      for (const change of changes) {
        for (const node of change.addedNodes) {
          if (node.nodeType !== 1) continue;
          if (node.matches(".chat-logs")) swapped = true;
          if (node.matches(".chat-composer")) {
            afterComposer();
            refocusOn = null;
          }
          // A line added to a log as it is said (not a whole log again, not a line removed by a moderator).
          const said = node.matches(".chat-line:not(.is-removed)") && change.target.matches?.(".chat-log");
          if (!said) continue;
          if (node.id && chat.querySelectorAll(`[id="${node.id}"]`).length > 1) {
            node.remove(); // read with the logs on (re)connecting, and its news came just after: shown once
            continue;
          }
          if (!shown(node)) continue;
          newest = node;
          if (!node.matches(".is-mine")) fresh += 1;
        }
      }
      if (swapped) applyRooms();
      if (newest) {
        if (!newest.matches(".is-mine")) announce(newest);
      }
      if ((newest || swapped) && !panel.hidden) scrollDown();
      if (fresh && panel.hidden) {
        count += fresh;
        showCount();
      }
    }).observe(chat, { childList: true, subtree: true });

    applyRooms();
    roomForToggle();
  }

  const start = () => document.querySelectorAll("#chat").forEach(setUp);
  document.addEventListener("DOMContentLoaded", start);
  start();
})();
