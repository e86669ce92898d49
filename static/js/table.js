// The hand in the player's hands: pick by tap or keyboard (or, as a setting, play with one tap),
// drag a card to the table to play it or sideways to reorder the hand (kept per match, across
// reloads), the seven's suit prompt before the card lands, keyboard shortcuts, the table's
// settings, the turn clock and the next deal's countdown. A card the rules refuse now says why at
// once (the server's own sentence, sent with the card) and is never picked or sent.
// htmx morphs each update into the page, so what the player set up (pick, focus, an open sheet)
// stays; the hand's order is laid out again, and "table:updated" then tells the story script.
(() => {
  "use strict";

  const DRAG_START_PX = 6;
  const SLIDE_MS = 180;
  /** The cards a player plays before the hint under the hand ("drag a card to the table…") goes. */
  const PLAYS_BEFORE_HINT_GOES = 3;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

  const handForm = () => document.getElementById("hand-area");
  const handLabels = () => [...document.querySelectorAll("#hand-area .hand-card")];
  const codeOf = (label) => label.querySelector("input[name=card]").value;
  const pickedInput = () => document.querySelector("#hand-area input[name=card]:checked");
  const playButton = () => document.querySelector("#hand-area .play-button");
  const suitPicker = () => document.querySelector("#hand-area .suit-picker");
  const table = () => document.querySelector(".play");
  /** Why the rules refuse this card now (the server's sentence), or "" when it may be played. */
  const refusalOf = (label) => label?.dataset.refusal ?? "";
  const setting = (name) => localStorage.getItem(`septica:${name}`) === "1";

  // ---- The hand's order, per match ----

  function orderKey() {
    const match = handForm()?.dataset.match;
    return match ? `septica:hand-order:${match}` : null;
  }

  function savedOrder() {
    const key = orderKey();
    try {
      return (key && JSON.parse(localStorage.getItem(key))) || [];
    } catch {
      return [];
    }
  }

  function saveOrder() {
    const key = orderKey();
    if (key) localStorage.setItem(key, JSON.stringify(handLabels().map(codeOf)));
  }

  /** Lay the hand out in the player's order; cards new to the hand go to its end, as dealt. */
  function applyOrder() {
    const order = savedOrder();
    if (!order.length) return;
    const place = new Map(order.map((code, index) => [code, index]));
    const labels = handLabels();
    const sorted = [...labels].sort(
      (a, b) => (place.get(codeOf(a)) ?? Infinity) - (place.get(codeOf(b)) ?? Infinity),
    );
    if (sorted.every((label, index) => label === labels[index])) return;
    // Moved, not removed and put back: the focus and the pick stay where they are.
    const hand = labels[0].parentElement;
    for (const label of sorted) hand.moveBefore ? hand.moveBefore(label, null) : hand.append(label);
  }

  // ---- Picking and playing ----

  /** Put a notice on the table, read aloud (it is an alert); a fresh element, so it shows anew. */
  function tell(words) {
    const notice = document.getElementById("notice");
    if (!notice) return;
    const fresh = notice.cloneNode(false);
    fresh.textContent = words;
    notice.replaceWith(fresh);
  }

  /** Play is pressable only with a card picked that the rules allow. */
  function syncPlayButton() {
    const button = playButton();
    const picked = pickedInput();
    if (button) button.disabled = !picked || Boolean(refusalOf(picked.closest(".hand-card")));
  }
  document.addEventListener("change", (event) => {
    if (event.target.matches?.("#hand-area input[name=card]")) syncPlayButton();
  });

  /** Whether the next message sent must say "play" though the page has no Play button. */
  let forcedPlay = false;

  /** Send the move "play this card" (a seven's suit is sent by its own button). */
  function playCard(label) {
    label.querySelector("input[name=card]").checked = true;
    syncPlayButton();
    const button = playButton();
    if (button) {
      handForm().requestSubmit(button);
    } else {
      // Not the player's turn, or no card may be played: the server says why.
      forcedPlay = true;
      handForm().requestSubmit();
    }
  }
  document.addEventListener("htmx:ws:before:message:outgoing", (event) => {
    if (forcedPlay) {
      event.detail.message.values.type = "play";
      forcedPlay = false;
    }
  });

  /** The seven waits for its suit: the picker shows and takes the focus. */
  function askSuit(label) {
    label.querySelector("input[name=card]").checked = true;
    syncPlayButton();
    suitPicker()?.querySelector("button")?.focus();
  }

  /** A tap on a card (as a setting) plays it at once: a seven first asks for its suit. */
  function playAtOnce(label) {
    if (needsSuit(label)) {
      askSuit(label);
    } else {
      playCard(label);
    }
  }

  // Every play sent counts towards the hint under the hand going away.
  document.addEventListener(
    "submit",
    (event) => {
      const submitter = event.submitter;
      if (!submitter?.closest("#hand-area") || !(submitter.value === "play" || submitter.name === "suit")) return;
      const played = Number(localStorage.getItem("septica:cards-played")) || 0;
      localStorage.setItem("septica:cards-played", String(played + 1));
      showHint();
    },
    true,
  );

  function showHint() {
    const played = Number(localStorage.getItem("septica:cards-played")) || 0;
    table()?.classList.toggle("knows-how-to-play", played >= PLAYS_BEFORE_HINT_GOES);
  }

  /** The card dropped on the table, held there until the update that plays or refuses it. */
  let held = null;
  /** A seven dropped on the table, hovering there until its suit is named. */
  let awaitingSuit = null;
  document.addEventListener("submit", () => (awaitingSuit = null), true);

  const needsSuit = (label) =>
    label.querySelector("input[data-seven]") !== null && suitPicker() !== null;

  /** Put the picked card back in the hand; the focus goes to it. */
  function unpick() {
    const input = pickedInput();
    if (!input) return;
    input.checked = false;
    awaitingSuit = null;
    syncPlayButton();
    const label = input.closest(".hand-card");
    if (label === held) slideBack(label);
    input.focus();
  }

  // A move the page could not send (no connection): its card goes back to the hand.
  document.addEventListener("table:unsent", unpick);

  // A radio cannot be unchecked by clicking it; a card in the hand can.
  let pickedBeforeClick = null;
  let swallowClick = false;
  document.addEventListener("pointerdown", (event) => {
    const input = event.target.closest(".hand-card")?.querySelector("input[name=card]");
    pickedBeforeClick = input && input.checked ? input : null;
    swallowClick = false;
  });
  document.addEventListener(
    "click",
    (event) => {
      if (swallowClick && event.target.closest(".hand-card")) {
        // The click that ends a drag is not a tap.
        swallowClick = false;
        event.preventDefault();
        event.stopPropagation();
        return;
      }
      if (event.target.closest("[data-cancel]")) {
        unpick();
        return;
      }
      const label = event.target.closest("#hand-area .hand-card");
      const input = label?.querySelector("input[name=card]");
      if (input && refusalOf(label)) {
        // Refused by the rules: it says why, and is not picked.
        event.preventDefault();
        tell(refusalOf(label));
      } else if (input && input === pickedBeforeClick) {
        input.checked = false;
        event.preventDefault();
        syncPlayButton();
      } else if (input && setting("one-tap") && playButton()) {
        event.preventDefault();
        playAtOnce(label);
      }
      pickedBeforeClick = null;
    },
    true,
  );

  // ---- Dragging (mouse, pen and touch alike, through Pointer Events) ----

  let drag = null;

  function slideBack(label) {
    if (label === held) held = null;
    label.classList.remove("is-dragging", "is-held");
    if (reducedMotion.matches || document.hidden) {
      label.style.transform = "";
      return;
    }
    label.style.transition = `transform ${SLIDE_MS}ms ease-out`;
    label.style.transform = "";
    label.addEventListener("transitionend", () => (label.style.transition = ""), { once: true });
  }

  /** Whether the pointer is over the table rather than the hand: there a card is played. */
  function overTable(x, y) {
    const center = document.getElementById("center")?.getBoundingClientRect();
    const hand = document.querySelector("#hand-area .hand")?.getBoundingClientRect();
    const inCenter = center && x >= center.left && x <= center.right && y >= center.top && y <= center.bottom;
    return Boolean(inCenter || (hand && y < hand.top - 8));
  }

  /** Move the dragged card to where the pointer is among the others (by their visible strips). */
  function reorderUnder(x, y) {
    const labels = handLabels();
    const from = labels.indexOf(drag.label);
    const target = labels.find((label) => {
      if (label === drag.label) return false;
      const box = label.getBoundingClientRect();
      return x >= box.left && x < box.right && y >= box.top - 20 && y <= box.bottom + 20;
    });
    if (!target) return;
    const to = labels.indexOf(target);
    target.parentElement.insertBefore(drag.label, to > from ? target.nextSibling : target);
  }

  function followPointer() {
    const { label } = drag;
    // offsetLeft/Top ignore transforms: they say where the card's slot is now.
    const dx = drag.x - drag.startX - (label.offsetLeft - drag.slotLeft);
    const dy = drag.y - drag.startY - (label.offsetTop - drag.slotTop);
    label.style.transform = `translate(${dx}px, ${dy}px)`;
  }

  document.addEventListener("pointerdown", (event) => {
    const label = event.target.closest("#hand-area .hand-card");
    if (!label || !event.isPrimary || event.button !== 0 || label === held) return;
    drag = {
      label,
      pointerId: event.pointerId,
      startX: event.clientX,
      startY: event.clientY,
      x: event.clientX,
      y: event.clientY,
      slotLeft: label.offsetLeft,
      slotTop: label.offsetTop,
      moving: false,
      orderBefore: handLabels().map(codeOf).join(),
    };
  });

  document.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!drag.moving) {
      if (Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) < DRAG_START_PX) return;
      drag.moving = true;
      drag.label.classList.add("is-dragging");
      drag.label.setPointerCapture?.(event.pointerId);
    }
    event.preventDefault();
    const onTable = overTable(event.clientX, event.clientY);
    document.querySelector(".play")?.classList.toggle("is-drop-target", onTable);
    if (!onTable) reorderUnder(event.clientX, event.clientY);
    drag.x = event.clientX;
    drag.y = event.clientY;
    followPointer();
  });

  function endDrag(event, cancelled) {
    if (!drag || event.pointerId !== drag.pointerId) return;
    const { label, moving, orderBefore } = drag;
    drag = null;
    document.querySelector(".play")?.classList.remove("is-drop-target");
    if (!moving) return;
    swallowClick = !cancelled;
    if (!cancelled && overTable(event.clientX, event.clientY)) {
      dropOnTable(label);
      return;
    }
    if (handLabels().map(codeOf).join() !== orderBefore) saveOrder();
    slideBack(label);
  }

  function dropOnTable(label) {
    saveOrder();
    if (refusalOf(label)) {
      // It will not stick: back to its place, saying why.
      slideBack(label);
      tell(refusalOf(label));
      return;
    }
    if (!playButton()) {
      // Not the player's turn: back to its place, and the server's reason shows.
      slideBack(label);
      playCard(label);
      label.querySelector("input[name=card]").checked = false;
      return;
    }
    label.classList.remove("is-dragging");
    label.classList.add("is-held");
    held = label;
    if (needsSuit(label)) {
      awaitingSuit = label;
      askSuit(label);
    } else {
      playCard(label);
    }
  }

  document.addEventListener("pointerup", (event) => endDrag(event, false));
  document.addEventListener("pointercancel", (event) => endDrag(event, true));

  // ---- Keyboard ----

  function moveFocus(input, step, carry) {
    const labels = handLabels();
    const from = labels.indexOf(input.closest(".hand-card"));
    const to = Math.max(0, Math.min(labels.length - 1, from + step));
    if (to === from) return;
    if (carry) {
      const target = labels[to];
      target.parentElement.insertBefore(labels[from], step > 0 ? target.nextSibling : target);
      saveOrder();
      input.focus();
    } else {
      labels[to].querySelector("input[name=card]").focus();
    }
  }

  function pickOrPlay(input) {
    const label = input.closest(".hand-card");
    if (refusalOf(label)) {
      tell(refusalOf(label));
    } else if (!input.checked) {
      input.checked = true;
      syncPlayButton();
    } else if (needsSuit(label)) {
      askSuit(label);
    } else {
      playCard(label);
    }
  }

  function toggleScores() {
    const scores = document.querySelector("#topbar .scores");
    if (!scores) return;
    scores.open = !scores.open;
    scores.querySelector("summary").focus();
  }

  function escape() {
    const open = document.querySelector(".play details[open]");
    if (open) {
      open.open = false;
      open.querySelector("summary").focus();
      return;
    }
    unpick();
  }

  // The action buttons' own keys: D draws, T takes, E ends a trick (S is the scores', not sit-out's).
  const BUTTON_KEYS = new Set(["d", "t", "e"]);

  document.addEventListener("keydown", (event) => {
    if (!document.querySelector(".play") || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    // The chat's drawer has keys of its own (chat.js): typing there never moves a card.
    if (target.closest?.("#chat")) return;
    if (event.key === "Escape") {
      escape();
      return;
    }
    if (target.matches?.("input[type=text], input[type=search], textarea, select")) return;
    if (target.matches?.("#hand-area input[name=card]")) {
      const steps = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: -999, End: 999 };
      if (event.key in steps) {
        event.preventDefault();
        moveFocus(target, steps[event.key], event.shiftKey);
        return;
      }
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pickOrPlay(target);
        return;
      }
    }
    if (event.shiftKey) return;
    const key = event.key.toLowerCase();
    if (key === "s") {
      event.preventDefault();
      toggleScores();
    } else if (BUTTON_KEYS.has(key)) {
      const button = document.querySelector(`#hand-area .actions button[data-key="${key}"]`);
      if (button) {
        event.preventDefault();
        button.click();
      }
    }
  });

  // ---- Settings kept in this browser ----

  /** What a setting changes on the page at once ("notify" is read when the turn comes). */
  const APPLY = {
    "four-colour": (on) => table()?.classList.toggle("four-colour", on),
    "one-tap": (on) => table()?.classList.toggle("one-tap", on),
    "no-chat": (on) => table()?.classList.toggle("no-chat", on),
  };

  function loadSettings() {
    for (const box of document.querySelectorAll("[data-setting]")) {
      const name = box.dataset.setting;
      box.checked = localStorage.getItem(`septica:${name}`) === "1";
      if (name === "notify") {
        box.disabled = !("Notification" in window) || Notification.permission === "denied";
        box.checked &&= !box.disabled && Notification.permission === "granted";
      }
      APPLY[name]?.(box.checked);
    }
  }

  document.addEventListener("change", async (event) => {
    const box = event.target.closest("[data-setting]");
    if (!box) return;
    const name = box.dataset.setting;
    if (name === "notify" && box.checked && Notification.permission !== "granted") {
      box.checked = (await Notification.requestPermission()) === "granted";
    }
    localStorage.setItem(`septica:${name}`, box.checked ? "1" : "0");
    APPLY[name]?.(box.checked);
  });

  // ---- The turn clock and the next deal's countdown, and a waiting room that must become the table ----

  // At own pace the clock reads in days and hours ("1 day 3 hours left"), as the server wrote it.
  function tickClocks() {
    for (const clock of document.querySelectorAll(".clock[data-deadline]:not(.is-pace)")) {
      const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
      clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      clock.classList.toggle("is-short", left <= 10);
    }
  }
  setInterval(tickClocks, 1000);

  // ---- Going elsewhere after a while ----

  // An element with data-go-to (a URL) and data-go-after (seconds), put in the page by an app above
  // the table's own (a tournament takes its players back once their match has scored), sends the
  // page there after that many seconds, counting down in its [data-go-seconds], unless the person
  // presses its [data-go-stay] button.
  const goingAway = new WeakSet();

  function goAfterAWhile() {
    for (const element of document.querySelectorAll("[data-go-to][data-go-after]")) {
      if (goingAway.has(element)) continue;
      goingAway.add(element);
      const due = Date.now() + Number(element.dataset.goAfter) * 1000;
      const timer = setInterval(() => {
        if (!element.isConnected) { clearInterval(timer); return; }
        const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
        for (const count of element.querySelectorAll("[data-go-seconds]")) count.textContent = String(left);
        if (left === 0) {
          clearInterval(timer);
          location.assign(element.dataset.goTo);
        }
      }, 250);
      element.querySelector("[data-go-stay]")?.addEventListener("click", () => {
        clearInterval(timer);
        element.remove();
      });
    }
  }

  // ---- The top bar's height, for the sheets that rise up to it and the way back under it (site.css) ----

  const topBar = document.querySelector(".site-header");
  if (topBar && "ResizeObserver" in window) {
    new ResizeObserver(() => {
      document.documentElement.style.setProperty("--top-bar-height", `${topBar.offsetHeight}px`);
    }).observe(topBar);
  }

  // ---- After every update ----

  // htmx morphs each fragment into the page, so the elements the player is using stay: the focus,
  // the picked card, an open sheet (its "open" is the player's, not the server's) and a dragged or
  // held card's place (the server never sets a style). Only the classes come as the server has them.
  htmx.config.morphIgnore.push("open", "style");

  /** The last control focused in the hand, and where: if an update takes it away, its neighbour. */
  let lastFocus = { element: null, index: 0 };
  document.addEventListener("focusin", (event) => {
    if (!event.target.closest("#hand-area")) return;
    lastFocus = { element: event.target, index: handLabels().indexOf(event.target.closest(".hand-card")) };
  });

  function refocus() {
    if (lastFocus.element?.isConnected || (document.activeElement && document.activeElement !== document.body)) {
      return;
    }
    const labels = handLabels();
    const near = labels[Math.max(0, Math.min(lastFocus.index, labels.length - 1))];
    (near?.querySelector("input[name=card]") ?? document.querySelector("#hand-area button"))?.focus();
  }

  // Whether the table is live: set by the first update over the websocket, cleared when it closes.
  document.addEventListener("htmx:ws:close", () => delete document.querySelector(".play")?.dataset.live);

  document.addEventListener("htmx:ws:after:message:incoming", () => {
    const table = document.querySelector(".play");
    if (table) table.dataset.live = "true";
    if (document.querySelector("[data-reload]")) {
      window.location.reload();
      return;
    }
    applyOrder();
    if (drag && !drag.label.isConnected) drag = null;
    drag?.label.classList.toggle("is-dragging", drag.moving);
    if (awaitingSuit && !awaitingSuit.isConnected) awaitingSuit = null;
    awaitingSuit?.classList.add("is-held");
    if (held !== awaitingSuit) {
      // A card held over the table that is still in the hand was refused: it goes back.
      if (held?.isConnected) slideBack(held);
      held = null;
    }
    refocus();
    syncPlayButton();
    tickClocks();
    goAfterAWhile();
    document.dispatchEvent(new CustomEvent("table:updated"));
  });

  /** A table on show: its hand in the player's order, their settings, its clocks. A page may show
   * its table after loading (the practice page does, once its worker has dealt). */
  function showTable() {
    applyOrder();
    loadSettings();
    showHint();
    syncPlayButton();
    tickClocks();
    goAfterAWhile();
  }
  document.addEventListener("DOMContentLoaded", showTable);
  document.addEventListener("table:shown", showTable);
})();
