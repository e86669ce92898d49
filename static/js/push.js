// Web push on this device, on the notifications settings page: says whether this browser shows the
// person's notifications (on, off, blocked by the browser, not possible here), and turns them on or
// off. The browser asks for permission only when the person taps "turn on", never on its own.
// Turning on registers the site's push worker for the whole site, subscribes with the site's key and
// hands the subscription to the site; turning off forgets it on both sides.
(() => {
  "use strict";

  const root = document.querySelector("[data-push]");
  if (!root) return;
  const state = root.querySelector(".push-state");
  const onButton = root.querySelector("[data-push-on]");
  const offButton = root.querySelector("[data-push-off]");
  const SCOPE = "/";
  const supported =
    window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

  /** A refusal the site explained (its words, in the page's language). */
  class Refused extends Error {}

  function show(name, message) {
    state.dataset.state = name;
    state.textContent = message || state.dataset[name];
    onButton.hidden = name !== "off" && name !== "failed";
    offButton.hidden = name !== "on";
  }

  function keyBytes(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  }

  /** Whether ``subscription`` was made with the site's key as it is now (a new key pair ends it). */
  function madeWithKey(subscription) {
    const had = subscription.options && subscription.options.applicationServerKey;
    if (!had) return true; // a browser that does not say
    const wanted = keyBytes(root.dataset.key);
    const bytes = new Uint8Array(had);
    return bytes.length === wanted.length && bytes.every((byte, i) => byte === wanted[i]);
  }

  async function digest(text) {
    const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, "0")).join("");
  }

  /** Whether the site keeps ``subscription`` as this person's (another person may have turned this
   * browser on, before logging out). */
  async function isMine(subscription) {
    return root.dataset.mine.split(" ").includes(await digest(subscription.endpoint));
  }

  async function current() {
    const registration = await navigator.serviceWorker.getRegistration(SCOPE);
    return registration ? registration.pushManager.getSubscription() : null;
  }

  function csrfToken() {
    return document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/)?.[1] ?? "";
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body),
    });
    if (response.ok) return;
    const answer = await response.json().catch(() => ({}));
    throw answer.error ? new Refused(answer.error) : new Error(response.statusText);
  }

  async function look() {
    if (!supported) return show("unsupported");
    if (Notification.permission === "denied") return show("blocked");
    const subscription = await current();
    const on =
      subscription && Notification.permission === "granted" && madeWithKey(subscription) && (await isMine(subscription));
    show(on ? "on" : "off");
  }

  async function subscribed() {
    await navigator.serviceWorker.register(root.dataset.worker, { scope: SCOPE });
    const registration = await navigator.serviceWorker.ready;
    const kept = await registration.pushManager.getSubscription();
    if (kept && madeWithKey(kept)) return kept;
    if (kept) await kept.unsubscribe();
    return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(root.dataset.key) });
  }

  async function turnOn() {
    const permission = await Notification.requestPermission();
    if (permission === "denied") return show("blocked");
    if (permission !== "granted") return show("off"); // the prompt closed without an answer
    const subscription = await subscribed();
    try {
      await post(root.dataset.subscribe, subscription.toJSON());
    } catch (error) {
      await subscription.unsubscribe(); // the site will not push to it: the browser need not keep it
      throw error;
    }
    root.dataset.mine += ` ${await digest(subscription.endpoint)}`;
    show("on");
  }

  async function turnOff() {
    const subscription = await current();
    if (subscription) {
      await post(root.dataset.unsubscribe, { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    show("off");
  }

  function tapped(button, action) {
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await action();
      } catch (error) {
        show("failed", error instanceof Refused ? error.message : "");
      } finally {
        button.disabled = false;
      }
    });
  }

  tapped(onButton, turnOn);
  tapped(offButton, turnOff);
  look().catch(() => show("failed"));
})();
