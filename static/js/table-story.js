// What just happened at the table, told three ways: short motion (a played card travels from its
// seat to the pile or trick, drawn cards come from the stock, a taken trick slides to its winner,
// an owed draw or a skip lands on the seat it hits), a polite spoken line per new log entry, and
// "Your turn" in the tab's title (and as a notification when the tab is in the background).
// Positions are read just before an update and compared just after it (FLIP); nothing moves when
// the tab is hidden or the player prefers reduced motion.
(() => {
  "use strict";

  const MOVE_MS = 230;
  const STAGGER_MS = 35;
  const MAX_STAGGER_MS = 140;
  const MAX_FLYING_BACKS = 3;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  const still = () => reducedMotion.matches || document.hidden;

  const rectOf = (element) => element?.getBoundingClientRect() ?? null;
  const texts = (selector) => [...document.querySelectorAll(selector)].map((el) => el.textContent.trim());

  /** Where each seat sits on screen, by name: the opponents' boxes and the player's hand. */
  function seats() {
    const found = new Map();
    for (const box of document.querySelectorAll("#opponents .opponent")) {
      found.set(box.dataset.name, {
        rect: rectOf(box),
        cards: Number(box.querySelector(".opponent-count")?.textContent || 0),
        toAct: box.classList.contains("is-to-act"),
      });
    }
    const hand = document.getElementById("hand-area");
    if (hand?.dataset.me) {
      found.set(hand.dataset.me, {
        rect: rectOf(hand.querySelector(".hand") || hand),
        cards: hand.querySelectorAll(".hand-card").length,
        toAct: hand.querySelector(".me-line.is-to-act") !== null,
      });
    }
    return found;
  }

  function snapshot() {
    // A new update overtakes the last one's motion: land everything before measuring.
    for (const animation of document.getAnimations()) {
      if (!(animation instanceof CSSAnimation)) animation.finish(); // the notice's slow fade runs on
    }
    for (const ghost of document.querySelectorAll(".ghost")) ghost.remove();
    const hand = new Map();
    for (const label of document.querySelectorAll("#hand-area .hand-card")) {
      hand.set(label.querySelector("input[name=card]").value, rectOf(label.querySelector(".card")));
    }
    const top = document.querySelector("#center .pile .card");
    return {
      hand,
      top: top?.dataset.code ?? null,
      stock: rectOf(document.querySelector("#center .stock .card")),
      trick: [...document.querySelectorAll("#center .trick-card")].map((item) => ({
        code: item.querySelector(".card").dataset.code,
        card: item.querySelector(".card"),
        rect: rectOf(item.querySelector(".card")),
        who: item.querySelector(".trick-who")?.textContent.trim(),
        holds: item.classList.contains("is-holding"),
      })),
      seats: seats(),
      hits: texts("#opponents .hit, #hand-area .hit").join("|"),
      log: texts("#log li"),
      myTurn: document.querySelector("#hand-area .me-line.is-to-act") !== null,
    };
  }

  // ---- Motion ----

  /** A card-sized box in the middle of a seat's box: where a card leaves from or lands at. */
  function cardSizedAt(box) {
    if (!box) return null;
    const width = Math.min(box.width, 40);
    const height = Math.min(box.height, 56);
    const left = box.left + (box.width - width) / 2;
    const top = box.top + (box.height - height) / 2;
    return { left, top, width, height };
  }

  /** Play ``element`` from where ``from`` was to where it is now. */
  function flyFrom(element, from, delay = 0) {
    const to = rectOf(element);
    if (!from || !to || !to.width) return;
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    const scale = from.width / to.width || 1;
    element.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
      { duration: MOVE_MS, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
    );
  }

  /** A copy of ``card`` flying from ``from`` to ``to`` over everything, gone when it lands. */
  function flyGhost(card, from, to, delay = 0) {
    if (!from || !to) return;
    const ghost = card.cloneNode(true);
    ghost.classList.add("ghost");
    ghost.removeAttribute("role");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.left = `${from.left}px`;
    ghost.style.top = `${from.top}px`;
    ghost.style.width = `${from.width}px`;
    ghost.style.height = `${from.height}px`;
    document.body.append(ghost);
    const dx = to.left + to.width / 2 - (from.left + from.width / 2);
    const dy = to.top + to.height / 2 - (from.top + from.height / 2);
    ghost.animate(
      [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(.5)`, opacity: 0.2 }],
      { duration: MOVE_MS, delay, easing: "cubic-bezier(.4,0,.6,1)", fill: "both" },
    );
    // A timer, not the animation's end: a page that draws no frames never finishes an animation.
    setTimeout(() => ghost.remove(), delay + MOVE_MS);
  }

  function backCard() {
    const back = document.createElement("span");
    back.className = "card card-back";
    return back;
  }

  function animate(before) {
    const after = seats();
    const toActBefore = [...before.seats].find(([, seat]) => seat.toAct)?.[0];
    const seatRect = (name) => cardSizedAt(before.seats.get(name)?.rect);

    // A card reached the pile: from the hand it left, or from the seat that was to play.
    const top = document.querySelector("#center .pile .card");
    if (top && top.dataset.code !== before.top) {
      flyFrom(top, before.hand.get(top.dataset.code) ?? seatRect(toActBefore));
    }

    // Cards joined the trick, each from its player's seat; a trick that went slides to its winner.
    const trickNow = [...document.querySelectorAll("#center .trick-card")];
    const codesBefore = new Set(before.trick.map((played) => played.code));
    for (const item of trickNow) {
      const card = item.querySelector(".card");
      if (!codesBefore.has(card.dataset.code)) {
        const who = item.querySelector(".trick-who")?.textContent.trim();
        flyFrom(card, before.hand.get(card.dataset.code) ?? seatRect(who));
      }
    }
    const codesNow = new Set(trickNow.map((item) => item.querySelector(".card").dataset.code));
    const gone = before.trick.filter((played) => !codesNow.has(played.code));
    if (gone.length) {
      const winner = [...before.trick].reverse().find((played) => played.holds)?.who;
      const target = cardSizedAt(after.get(winner)?.rect) ?? seatRect(winner);
      gone.forEach((played, index) => flyGhost(played.card, played.rect, target, index * STAGGER_MS));
    }

    // Cards drawn into the hand come from the stock.
    const stock = rectOf(document.querySelector("#center .stock .card")) ?? before.stock;
    let drawn = 0;
    for (const label of document.querySelectorAll("#hand-area .hand-card")) {
      if (!before.hand.has(label.querySelector("input[name=card]").value)) {
        flyFrom(label.querySelector(".card"), stock, Math.min(drawn++ * STAGGER_MS, MAX_STAGGER_MS));
      }
    }

    // An opponent who drew: backs fly from the stock to their seat.
    for (const [name, seat] of after) {
      const grew = seat.cards - (before.seats.get(name)?.cards ?? seat.cards);
      if (grew > 0 && name !== document.getElementById("hand-area")?.dataset.me) {
        for (let index = 0; index < Math.min(grew, MAX_FLYING_BACKS); index++) {
          flyGhost(backCard(), stock, cardSizedAt(seat.rect), index * STAGGER_MS);
        }
      }
    }

    // An owed draw or a skip lands on the seat it hits.
    const hits = texts("#opponents .hit, #hand-area .hit").join("|");
    if (hits && hits !== before.hits) {
      for (const hit of document.querySelectorAll("#opponents .hit, #hand-area .hit")) {
        hit.animate(
          [{ transform: "scale(1.6)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }],
          { duration: MOVE_MS, easing: "cubic-bezier(.2,.7,.3,1.4)" },
        );
      }
    }
  }

  // ---- Words: the live region, the title, a notification ----

  const announcer = () => document.getElementById("announcer");

  function say(lines) {
    const region = announcer();
    if (!region || !lines.length) return;
    for (const line of lines) {
      const entry = document.createElement("p");
      entry.textContent = line;
      region.append(entry);
    }
    while (region.childElementCount > 6) region.firstElementChild.remove();
  }

  /** The log lines that are new since ``old``: what follows the longest overlap of the two. */
  function newLines(old, now) {
    for (let overlap = Math.min(old.length, now.length); overlap > 0; overlap--) {
      const tail = old.slice(old.length - overlap);
      if (tail.every((line, index) => line === now[index])) return now.slice(overlap);
    }
    return now;
  }

  const baseTitle = document.title;

  function tellTurn(wasMyTurn) {
    const myTurn = document.querySelector("#hand-area .me-line.is-to-act") !== null;
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

  let before = null;

  document.addEventListener("htmx:ws:before:message:incoming", () => {
    before = snapshot();
  });

  document.addEventListener("table:updated", () => {
    if (!before) return;
    if (!still()) animate(before);
    say(newLines(before.log, texts("#log li")));
    tellTurn(before.myTurn);
    before = null;
  });

  document.addEventListener("DOMContentLoaded", () => tellTurn(false));
})();
