// The site's push worker, registered for the whole site once a person turns notifications on for a
// device: a push shows its notice (title, body; a newer notice about the same match replaces the
// older, by its tag), and a tap on the notice brings up the match or the invitation, in the tab that
// already shows it or in a new one. It answers no requests: pages load as they would without it,
// and the practice table keeps its own worker for its own pages.
const ICON = {{ icon|safe }};
const HOME = new URL("/", self.location.origin).href;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** The page a notice leads to: a link of this site only (else its home page). */
function siteUrl(link) {
  try {
    const url = new URL(link, self.location.origin);
    return url.origin === self.location.origin ? url.href : HOME;
  } catch {
    return HOME;
  }
}

/** What a push says, whatever arrived: a push with no words (a push service's test) still shows. */
function readPush(event) {
  try {
    return event.data ? event.data.json() : {};
  } catch {
    return { body: event.data.text() };
  }
}

async function showNotice(notice) {
  const url = siteUrl(notice.url || "/");
  await self.registration.showNotification(notice.title || self.location.host, {
    body: notice.body || "",
    tag: notice.tag || url,
    icon: ICON,
    data: { url },
  });
  // The site's open pages are told too (one may show it its own way).
  for (const client of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) {
    client.postMessage({ type: "push-shown", tag: notice.tag || url, url });
  }
}

/** A tap on a notice: the tab that shows its page comes to the front, else a new one opens there (a
 * tab showing another page is left as it is). */
async function openNotice(notification) {
  const url = notification.data?.url || HOME;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const page = new URL(url).pathname;
  const showing = windows.find((client) => new URL(client.url).pathname === page);
  if (showing) return showing.focus();
  return self.clients.openWindow(url);
}

self.addEventListener("push", (event) => event.waitUntil(showNotice(readPush(event))));

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openNotice(event.notification));
});
