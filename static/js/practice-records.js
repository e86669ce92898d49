// Practice matches kept on this device belong to whoever played them: a person, or the guest (nobody
// logged in). On a shared device the next person must neither see nor save them, so each owner's
// records live under keys of their own, and once this device shows someone else, or nobody, logged
// in, every person's records but theirs are removed (the guest's stay, apart). Every page of the site
// names who is logged in (a meta tag) and runs this; the practice page, which the device keeps with
// nobody in it, asks the server instead whenever it is online (static/js/practice.js).
(() => {
  "use strict";

  const PERSON = "practice.person";
  const RECORDS = "practice.records.";
  const GUEST = "guest";
  const BEFORE_OWNERS = ["current", "past"]; // kept as practice.<what> by the device, whoever played

  /** The person last seen logged in on this device ({id, name}), or null for nobody. */
  function person() {
    try {
      return JSON.parse(localStorage.getItem(PERSON));
    } catch {
      return null;
    }
  }

  const ownerOf = (someone) => (someone ? `person-${someone.id}` : GUEST);

  /** The key of the present owner's record of ``what`` ("current": the match on, "past": the list). */
  const key = (what) => `${RECORDS}${ownerOf(person())}.${what}`;

  /** ``someone`` ({id, name}, or null) is now logged in here: remembered (the practice page needs it
   * offline), and every other person's records removed. */
  function loggedIn(someone) {
    const mine = ownerOf(someone);
    for (const stored of Object.keys(localStorage)) {
      if (!stored.startsWith(RECORDS)) continue;
      const owner = stored.slice(RECORDS.length).split(".")[0];
      if (owner !== GUEST && owner !== mine) localStorage.removeItem(stored);
    }
    // Kept before records had owners: they are the guest's now, as anyone here could open them.
    for (const what of BEFORE_OWNERS) {
      const before = localStorage.getItem(`practice.${what}`);
      if (before === null) continue;
      if (localStorage.getItem(`${RECORDS}${GUEST}.${what}`) === null) {
        localStorage.setItem(`${RECORDS}${GUEST}.${what}`, before);
      }
      localStorage.removeItem(`practice.${what}`);
    }
    if (someone) localStorage.setItem(PERSON, JSON.stringify({ id: someone.id, name: someone.name }));
    else localStorage.removeItem(PERSON);
  }

  window.practiceRecords = { person, key, loggedIn };

  const here = document.querySelector('meta[name="practice-person"]');
  if (here) loggedIn(here.content ? { id: Number(here.content), name: here.dataset.name } : null);
})();
