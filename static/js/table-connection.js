// The table's connection as the player sees it. While the network is gone or the socket is being
// reopened a notice says so (in the page's language, and aloud: it is an alert), and the table is
// dimmed; when the network comes back or the tab is shown again the socket reopens at once, not at
// the end of a backoff that may have grown to a minute. A move made without a connection is
// refused at once, aloud, and its card put back, rather than queued and sent later against a table
// that has moved on; a move the server does not answer is said to be in doubt, and the socket
// that swallowed it replaced. A socket the server closes for good (too many frames, a ban) is not
// reopened: the server said why at the top of the page, and a move is answered with that.
(() => {
  "use strict";

  /** Close codes after which the server would only close a new socket again: 4029, too many frames
   * too quickly (tables.consumers.TOO_MANY_FRAMES); 4403, not allowed here, or no longer (a ban). */
  const CLOSED_FOR_GOOD = [4029, 4403];
  // Which codes hx-ws reopens a socket after is the site's (templates/base.html's htmx-config).

  const BACK_SHOWN_MS = 2500;
  /** Every move is answered (the new table, or why not); a socket that stays silent longer after
   * one is dead without knowing it, as on a phone whose network is cut but still "online". */
  const ANSWER_WITHIN_MS = 5000;

  const table = () => document.querySelector(".play");
  /** A table on this device (practice) has no network between it and its game: nothing to say. */
  const local = () => table()?.hasAttribute("data-local") ?? false;
  const banner = () => document.getElementById("connection");
  /** hx-ws's connection for the table: its socket, its reconnect timer, its own reconnect. */
  const connection = () => table()?._htmx?.ws?.connection ?? null;

  /** Whether the banner told of trouble since the table last heard from the server. */
  let troubled = false;
  let quietTimer = null;
  let leaving = false;
  /** Whether the server closed the socket for good, and the words it said why. */
  let ended = false;
  let endedWords = "";

  /** Say how the connection stands: "offline", "reconnecting", "back" or "" (all is well). */
  function show(state) {
    const notice = banner();
    if (!notice) return;
    clearTimeout(quietTimer);
    notice.textContent = state ? notice.dataset[state] : "";
    notice.dataset.state = state;
    troubled = state === "offline" || state === "reconnecting";
    table()?.classList.toggle("is-offline", troubled);
    if (state === "back") quietTimer = setTimeout(() => show(""), BACK_SHOWN_MS);
  }

  /** Open a fresh socket now: the old one may be dead without knowing it (a cut network). */
  function reconnectNow() {
    const current = connection();
    if (!current?.visibilityHandler || document.hidden) return;
    clearTimeout(current.timer);
    const stale = current.socket;
    current.socket = null;
    // The extension's own "tab shown again" reconnect: a new socket, the backoff reset. It first
    // drops the stale socket's listeners, so closing it afterwards schedules nothing.
    current.visibilityHandler();
    try {
      stale?.close();
    } catch {
      // Already closed.
    }
  }

  window.addEventListener("offline", () => {
    if (!local() && !ended) show("offline");
  });
  window.addEventListener("online", () => {
    if (local() || ended) return;
    show("reconnecting");
    reconnectNow();
  });
  document.addEventListener("visibilitychange", () => {
    const current = connection();
    if (document.hidden || !current) return;
    const state = current.socket?.readyState;
    if (state === WebSocket.CONNECTING) {
      clearTimeout(current.timer); // already reopening: no second socket from an old backoff
    } else if (state !== WebSocket.OPEN) {
      reconnectNow();
    }
  });
  window.addEventListener("pagehide", () => (leaving = true));

  document.addEventListener("htmx:ws:close", (event) => {
    if (CLOSED_FOR_GOOD.includes(event.detail.code)) {
      ended = true;
      clearTimeout(answerTimer);
      // The server's words came just before the close, put at the top of the page: once they are
      // in, they move to the table's banner, where its connection is told of.
      event.detail.connection.receiving.then(() => {
        const closed = document.querySelector("[data-testid=socket-closed]");
        endedWords = closed?.textContent.trim() ?? "";
        closed?.remove();
        show("");
        const notice = banner();
        if (notice) {
          notice.textContent = endedWords;
          notice.dataset.state = "closed";
        }
        table()?.classList.add("is-offline");
      });
      return;
    }
    // A hidden tab's socket is closed on purpose, and reopens when the tab is shown.
    if (leaving || document.hidden || local() || ended) return;
    show(navigator.onLine ? "reconnecting" : "offline");
  });
  /** Put a notice on the table (a fresh element, so it shows and fades anew). */
  function tell(words) {
    const notice = document.getElementById("notice");
    if (!notice) return;
    const fresh = notice.cloneNode(false);
    fresh.textContent = words ?? "";
    notice.replaceWith(fresh);
  }

  let answerTimer = null;
  /** Whether a move went unanswered: said once the table is back, over the table as it stands. */
  let inDoubt = false;
  document.addEventListener("htmx:ws:after:message:outgoing", () => {
    clearTimeout(answerTimer);
    if (local()) return;
    answerTimer = setTimeout(() => {
      inDoubt = true;
      show("reconnecting");
      document.dispatchEvent(new CustomEvent("table:unsent"));
      reconnectNow();
    }, ANSWER_WITHIN_MS);
  });

  document.addEventListener("htmx:ws:after:message:incoming", () => {
    clearTimeout(answerTimer);
    if (troubled) show("back");
    if (inDoubt) tell(banner()?.dataset.unanswered);
    inDoubt = false;
  });

  document.addEventListener("htmx:ws:before:message:outgoing", (event) => {
    const open = event.detail.connection.socket?.readyState === WebSocket.OPEN;
    if (open && (navigator.onLine || local())) return;
    event.detail.cancelled = true;
    if (!troubled) show(navigator.onLine ? "reconnecting" : "offline");
    tell(banner()?.dataset.unsent);
    document.dispatchEvent(new CustomEvent("table:unsent"));
  });

  // A move made once the server closed the socket for good (hx-ws has no connection to send it on):
  // refused with the words the server gave, and its card put back.
  document.addEventListener("htmx:ws:error", () => {
    if (!ended) return;
    tell(endedWords);
    document.dispatchEvent(new CustomEvent("table:unsent"));
  });
})();
