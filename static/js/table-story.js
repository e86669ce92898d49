// What just happened at the table, told from the public events each update carries (#table-events:
// the moves made since this page's last update, oldest first, each with its seat). Three ways:
// short motion (a played card travels from its seat to the pile or trick, drawn cards fly face down
// from the stock to the seat that drew them, a taken trick goes to its winner, a cut, a skip and an
// owed draw mark the seat they hit), a polite spoken line per event, and "Your turn" in the tab's
// title (and as a notification when the tab is in the background). Nothing moves when the tab is
// hidden or the player prefers reduced motion; the words stay.
(() => {
  "use strict";

  const MOVE_MS = 230;
  const STAGGER_MS = 35;
  const MAX_DELAY_MS = 600;
  const MAX_FLYING_BACKS = 3;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  const still = () => reducedMotion.matches || document.hidden;
  const rectOf = (element) => element?.getBoundingClientRect() ?? null;

  /** The box that stands for a seat: an opponent's, else this player's own hand. */
  const seatOf = (seat) =>
    document.querySelector(`#opponents [data-seat="${seat}"]`) ?? document.querySelector("#hand-area .hand");

  /** A card-sized box in the middle of ``element``: where a card leaves from or lands at. */
  function cardSizedAt(element) {
    const box = rectOf(element);
    if (!box) return null;
    const width = Math.min(box.width, 40);
    const height = Math.min(box.height, 56);
    return { left: box.left + (box.width - width) / 2, top: box.top + (box.height - height) / 2, width, height };
  }

  /** Play ``element`` from where ``from`` is to where it is now. */
  function flyFrom(element, from, delay) {
    const to = rectOf(element);
    if (!from || !to?.width) return;
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    const scale = from.width / to.width || 1;
    element.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
      { duration: MOVE_MS, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
    );
  }

  /** ``count`` card backs (a few at most) flying from ``from`` to ``to`` over everything. */
  function flyBacks(count, from, to, delay) {
    if (!from || !to) return;
    const dx = to.left + to.width / 2 - (from.left + from.width / 2);
    const dy = to.top + to.height / 2 - (from.top + from.height / 2);
    for (let index = 0; index < Math.min(count, MAX_FLYING_BACKS); index++) {
      const ghost = document.createElement("span");
      ghost.className = "card card-back ghost";
      ghost.setAttribute("aria-hidden", "true");
      Object.assign(ghost.style, {
        left: `${from.left}px`,
        top: `${from.top}px`,
        width: `${from.width}px`,
        height: `${from.height}px`,
      });
      document.body.append(ghost);
      const start = delay + index * STAGGER_MS;
      ghost.animate(
        [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(.5)`, opacity: 0.2 }],
        { duration: MOVE_MS, delay: start, easing: "cubic-bezier(.4,0,.6,1)", fill: "both" },
      );
      // A timer, not the animation's end: a page that draws no frames never finishes an animation.
      setTimeout(() => ghost.remove(), start + MOVE_MS);
    }
  }

  /** A short pop on what an event hit: a seat that sat out, a cutting card, an owed draw. */
  function pop(element, delay) {
    element?.animate(
      [{ transform: "scale(1.6)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }],
      { duration: MOVE_MS, delay, easing: "cubic-bezier(.2,.7,.3,1.4)", fill: "backwards" },
    );
  }

  const stock = () => cardSizedAt(document.querySelector("#center .stock .card"));

  /** Each event's motion, by its type; the element it moves is marked with the event's type. */
  const MOTION = {
    played(event, delay) {
      const card = document.querySelector(`#center :is(.pile, .trick) .card[data-code="${event.card}"]`);
      flyFrom(card, cardSizedAt(seatOf(event.seat)), delay);
      if (event.cuts) pop(card?.closest(".trick-card"), delay + MOVE_MS);
      for (const hit of document.querySelectorAll("#opponents .hit, #hand-area .hit")) pop(hit, delay + MOVE_MS);
      return card;
    },
    drew(event, delay) {
      const seat = seatOf(event.seat);
      flyBacks(event.count, stock(), cardSizedAt(seat), delay);
      return seat;
    },
    took(event, delay) {
      // Americana: owed cards taken from the stock; classic: the trick, gone to its winner.
      const from = event.cards ? cardSizedAt(document.querySelector("#center .trick-row")) : stock();
      const seat = seatOf(event.seat);
      flyBacks(event.cards?.length ?? event.count, from, cardSizedAt(seat), delay);
      return seat;
    },
    sat_out(event, delay) {
      const seat = seatOf(event.seat);
      pop(seat, delay);
      return seat;
    },
  };

  function move(events) {
    // A new update overtakes the last one's motion: land everything first.
    for (const animation of document.getAnimations()) {
      if (!(animation instanceof CSSAnimation)) animation.finish(); // the notice's slow fade runs on
    }
    for (const ghost of document.querySelectorAll(".ghost")) ghost.remove();
    let delay = 0;
    for (const event of events) {
      const moved = MOTION[event.type]?.(event, delay);
      if (!moved) continue;
      moved.dataset.motion = event.type;
      delay = Math.min(delay + 2 * STAGGER_MS, MAX_DELAY_MS);
    }
  }

  // ---- Words: the live region, the title, a notification ----

  function say(lines) {
    const region = document.getElementById("announcer");
    if (!region) return;
    for (const line of lines) {
      const entry = document.createElement("p");
      entry.textContent = line;
      region.append(entry);
    }
    while (region.childElementCount > 6) region.firstElementChild.remove();
  }

  const baseTitle = document.title;
  let myTurn = false;

  function tellTurn() {
    const wasMyTurn = myTurn;
    myTurn = document.querySelector("#hand-area .me-line.is-to-act") !== null;
    const words = document.querySelector(".play")?.dataset.yourTurn ?? "";
    document.title = myTurn ? `${words} · ${baseTitle}` : baseTitle;
    if (!myTurn || wasMyTurn) return;
    say([words]);
    const wanted = localStorage.getItem("septica:notify") === "1";
    if (wanted && document.hidden && "Notification" in window && Notification.permission === "granted") {
      const notice = new Notification(words, { body: baseTitle, tag: "septica-turn" });
      notice.addEventListener("click", () => {
        window.focus();
        notice.close();
      });
    }
  }

  /** The events the last update brought, read once. */
  function newEvents() {
    const carrier = document.getElementById("table-events");
    if (!carrier?.dataset.events) return [];
    const events = JSON.parse(carrier.dataset.events);
    delete carrier.dataset.events;
    return events;
  }

  document.addEventListener("table:updated", () => {
    const events = newEvents();
    if (events.length && !still()) move(events);
    say(events.map((event) => event.said).filter(Boolean));
    tellTurn();
  });

  document.addEventListener("DOMContentLoaded", tellTurn);
})();
