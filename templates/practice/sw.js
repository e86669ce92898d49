// The practice table's service worker: the practice page and every file it needs, answered from the
// device, so practice opens and plays with no connection. The page fills the cache (showing the bytes
// as they come); this worker only answers from it. A new deploy changes the cache's name, and the old
// cache is dropped as soon as the new worker takes over.
const CACHE = {{ cache|safe }};
const PAGE = {{ page|safe }};
const FILES = new Set({{ files|safe }});

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("practice-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

/** The page from the network when there is one (so it is always the latest), else as kept. */
async function page(request) {
  const cache = await caches.open(CACHE);
  try {
    const fresh = await fetch(request);
    if (fresh.ok) await cache.put(PAGE, fresh.clone());
    return fresh;
  } catch (error) {
    const kept = await cache.match(PAGE);
    if (kept) return kept;
    throw error;
  }
}

/** A practice file from the device; fetched (and kept) only if it is not there yet. */
async function file(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreVary: true });
  if (kept) return kept;
  const fresh = await fetch(request);
  if (fresh.ok) await cache.put(request, fresh.clone());
  return fresh;
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (event.request.mode === "navigate" && url.pathname === PAGE) {
    event.respondWith(page(event.request));
  } else if (FILES.has(url.pathname)) {
    event.respondWith(file(event.request));
  }
});
