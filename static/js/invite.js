// The invitation link in a waiting room: Copy puts it on the clipboard, Share opens the system's
// Share sheet where the browser has one (phones). Where neither works (an insecure page, a refused
// permission) the link is selected so the device's own copy does it, and the page says so.
// The room is re-rendered over the websocket, so the buttons are found at the moment of the click.
(() => {
  "use strict";

  if (typeof navigator.share === "function") {
    document.documentElement.classList.add("can-share");
  }

  function say(kind) {
    const said = document.querySelector(".invite-said");
    if (said) said.textContent = said.dataset[kind];
  }

  function selectLink() {
    const input = document.getElementById("invite-link");
    input.focus();
    input.select();
    return input;
  }

  async function copy() {
    const input = selectLink();
    try {
      await navigator.clipboard.writeText(input.value);
      say("copied");
    } catch {
      // No clipboard API here (an http page) or no permission: the older way, else the device's own.
      say(document.execCommand && document.execCommand("copy") ? "copied" : "select");
    }
  }

  async function share(button) {
    const url = document.getElementById("invite-link").value;
    try {
      await navigator.share({ title: button.dataset.title, text: button.dataset.text, url });
    } catch (error) {
      if (error.name !== "AbortError") await copy(); // closing the sheet is a choice, not a failure
    }
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-invite-copy]")) {
      copy();
    }
    const shareButton = event.target.closest("[data-invite-share]");
    if (shareButton) {
      share(shareButton);
    }
  });
})();
