// The practice table's engine room, a module Web Worker: Pyodide runs the server's own Python (the
// engine, the bots, the presenters, the templates; practice/offline.py) here, so the page never
// freezes while a bot thinks. To the page it is the table's websocket: it takes htmx's form messages
// and sends back frames of the table's HTML fragments. After each change it sends the match's
// record, which the page keeps on the device.
const ROOT = "/practice";

let python = null;
let runtime = null;
let table = null;
let config = null;
let timer = null;
let reviewing = null;

// A memory snapshot keeps the whole Python heap as it stood once the practice was imported and its
// templates compiled; restored, it skips starting Python, the imports and the warm-up. Pyodide sizes
// the restored memory from an option its build ignores (the module brings its own memory), so a
// snapshot larger than that memory's first size would not fit: the memory is grown to the
// snapshot's size as Pyodide instantiates its module, before the heap is copied in.
let memoryWanted = 0;
for (const name of ["instantiate", "instantiateStreaming"]) {
  const original = WebAssembly[name];
  WebAssembly[name] = async (...args) => {
    const made = await original.apply(WebAssembly, args);
    const memory = (made.instance ?? made).exports?.memory;
    const missing = memory ? memoryWanted - memory.buffer.byteLength : 0;
    if (missing > 0) memory.grow(Math.ceil(missing / 65536));
    return made;
  };
}

/** The heap size a snapshot holds (after its header, whose length its second word gives). */
function heapSize(snapshot) {
  return snapshot.byteLength - new Uint32Array(snapshot.buffer, snapshot.byteOffset, 2)[1];
}

/** Pyodide, then the bundle, then Django's templates and translations: how long each took (ms), and
 * whether Python came from the device's snapshot. A snapshot Pyodide refuses (another build, a
 * browser that cannot) leaves the cold start, which then offers a new one. */
async function boot(settings, snapshot, files) {
  config = settings;
  const phases = {};
  let mark = performance.now();
  const lap = (name) => {
    const now = performance.now();
    phases[name] = Math.round(now - mark);
    mark = now;
  };
  const { loadPyodide } = await import(`${settings.pyodide}pyodide.mjs`);
  let refused = "";
  if (snapshot && files) {
    try {
      memoryWanted = heapSize(snapshot);
      python = await loadPyodide({ indexURL: settings.pyodide, _loadSnapshot: snapshot });
      lap("snapshot");
    } catch (error) {
      python = null;
      refused = String(error.message ?? error);
    } finally {
      memoryWanted = 0;
    }
  }
  const restored = python !== null;
  if (restored) {
    // The files live outside the heap: written back as they stood when the snapshot was taken.
    writeFiles(files);
    lap("files");
  } else {
    python = await loadPyodide({ indexURL: settings.pyodide, _makeSnapshot: true });
    lap("pyodide");
    const zip = await (await fetch(settings.bundle)).arrayBuffer();
    lap("fetch");
    python.unpackArchive(zip, "zip", { extractDir: ROOT });
    if (settings.compiled) python.unpackArchive(settings.compiled, "zip", { extractDir: ROOT });
    python.runPython(`import sys\nif "${ROOT}" not in sys.path: sys.path.insert(0, "${ROOT}")`);
    lap("unpack");
  }
  runtime = python.pyimport("practice.offline");
  lap("imports");
  if (!restored) {
    runtime.configure(ROOT, settings.languageCode, JSON.stringify(settings.languages));
    lap("django");
  }
  return { phases, restored, refused };
}

/** The heap as it stands, with the bundle's files as unpacked, for the next start; null where this
 * browser's Pyodide cannot take one. */
function snapshotNow() {
  try {
    return { snapshot: python.makeMemorySnapshot(), files: packedFiles() };
  } catch {
    return null;
  }
}

/** Every file under ROOT in one buffer: a 4-byte length, a JSON index of [path, size], the bytes. */
function packedFiles() {
  const { FS } = python;
  const found = [];
  const walk = (folder) => {
    for (const name of FS.readdir(folder)) {
      if (name === "." || name === "..") continue;
      const path = `${folder}/${name}`;
      if (FS.isDir(FS.stat(path).mode)) walk(path);
      else found.push([path, FS.readFile(path)]);
    }
  };
  walk(ROOT);
  const index = new TextEncoder().encode(JSON.stringify(found.map(([path, bytes]) => [path, bytes.length])));
  const packed = new Uint8Array(4 + index.length + found.reduce((sum, [, bytes]) => sum + bytes.length, 0));
  new DataView(packed.buffer).setUint32(0, index.length);
  packed.set(index, 4);
  let at = 4 + index.length;
  for (const [, bytes] of found) {
    packed.set(bytes, at);
    at += bytes.length;
  }
  return packed;
}

function writeFiles(packed) {
  const { FS } = python;
  const length = new DataView(packed.buffer, packed.byteOffset).getUint32(0);
  let at = 4 + length;
  for (const [path, size] of JSON.parse(new TextDecoder().decode(packed.subarray(4, at)))) {
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, packed.subarray(at, at + size));
    at += size;
  }
}

/** Tell the page the record as it now stands (and the result once the match is over). */
function report() {
  postMessage({
    type: "record",
    record: table.record_json(),
    finished: table.finished,
    result: table.finished ? table.result_text() : "",
  });
}

/** Send a frame to the page's table, then wait for what is due next (a bot's move, a deal). */
function answer(html) {
  if (html) postMessage({ type: "frame", html });
  report();
  clearTimeout(timer);
  const due = table.due();
  if (due !== undefined && due !== null) timer = setTimeout(step, due * 1000);
}

function step() {
  const started = performance.now();
  const html = table.advance();
  const decided = table.last_decision_ms;
  if (decided !== undefined && decided !== null) {
    postMessage({ type: "decision", level: table.last_level, ms: decided, total: performance.now() - started });
  }
  answer(html);
}

function open(record, language, player) {
  clearTimeout(timer);
  table?.destroy();
  table = runtime.open_table(record, language, player, JSON.stringify(config.pace));
  postMessage({ type: "page", html: table.page(), finished: table.finished });
  report();
}

/** The bundle compiled to bytecode, once per device and version: later starts skip compiling it. */
function compiled() {
  python.runPython(`
import compileall, io, os, py_compile, zipfile
compileall.compile_dir("${ROOT}", quiet=1, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w") as archive:
    for folder, _dirs, files in os.walk("${ROOT}"):
        if folder.endswith("__pycache__"):
            for name in files:
                path = os.path.join(folder, name)
                archive.write(path, os.path.relpath(path, "${ROOT}"))
`);
  const bytes = python.globals.get("buffer").getvalue();
  const copy = bytes.toJs().slice().buffer;
  bytes.destroy();
  return copy;
}

/** Judge the next decision of the match being reviewed, tell the page how far it is, and leave the
 * worker free for the table's messages before the next one; once all are judged, send the review. */
function reviewNext() {
  if (!reviewing) return;
  const { id, review, language } = reviewing;
  try {
    if (!review.finished) {
      review.next();
      postMessage({ type: "review-progress", id, done: review.done, total: review.total });
      setTimeout(reviewNext);
      return;
    }
    const kept = review.result_json();
    postMessage({ type: "reviewed", id, review: kept, html: runtime.review_html(kept, language) });
  } catch (error) {
    postMessage({ type: "review-failed", id, error: String(error.message ?? error) });
  }
  review.destroy();
  reviewing = null;
}

const handlers = {
  async boot(message) {
    const started = performance.now();
    const { phases, restored, refused } = await boot(message.config, message.snapshot, message.files);
    postMessage({ type: "booted", ms: performance.now() - started, phases, restored, refused });
    if (restored) return;
    // Nothing runs between these and the page's next message: the snapshot holds no table.
    runtime.warm(message.language);
    const taken = snapshotNow();
    if (taken) postMessage({ type: "snapshot", ...taken }, [taken.snapshot.buffer, taken.files.buffer]);
    if (!message.config.compiled) {
      const bytes = compiled();
      postMessage({ type: "compiled", bytes }, [bytes]);
    }
  },
  new(message) {
    const record = runtime.new_record(
      message.game,
      JSON.stringify(message.options),
      JSON.stringify(message.bots),
      message.fastBots,
      config.bundleVersion,
    );
    open(record, message.language, message.player);
  },
  open(message) {
    try {
      open(message.record, message.language, message.player);
    } catch (error) {
      postMessage({ type: "unreplayable", id: message.id, error: String(error.message ?? error) });
    }
  },
  connect() {
    if (table) answer(table.connect());
  },
  send(message) {
    if (table) answer(table.receive(message.data));
  },
  stop() {
    clearTimeout(timer);
  },
  /** Review a finished match (its record); one review at a time, a new one replacing the last. */
  review(message) {
    if (reviewing?.id === message.id) return;
    reviewing?.review.destroy();
    reviewing = null;
    try {
      const review = runtime.start_review(message.record);
      reviewing = { id: message.id, review, language: message.language };
    } catch (error) {
      postMessage({ type: "review-failed", id: message.id, error: String(error.message ?? error) });
      return;
    }
    postMessage({ type: "review-progress", id: message.id, done: 0, total: reviewing.review.total });
    setTimeout(reviewNext);
  },
  /** A review the device kept, shown in the page's language ("" when it must be made again). */
  "show-review"(message) {
    const html = runtime.review_html(message.review, message.language);
    postMessage({ type: "reviewed", id: message.id, review: message.review, html });
  },
};

onmessage = async (event) => {
  try {
    await handlers[event.data.type](event.data);
  } catch (error) {
    postMessage({ type: "error", error: String(error.message ?? error) });
  }
};
