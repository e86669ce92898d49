"""Every budget and cap the site sets on what one person or one address may do."""

import os

# --- Pairing pool and social -----------------------------------------------------------------------------
POOL_JOINS_PER_MINUTE = int(os.environ.get("POOL_JOINS_PER_MINUTE", "20"))
SOCIAL_REQUESTS_PER_HOUR = int(os.environ.get("SOCIAL_REQUESTS_PER_HOUR", "30"))
"""Friend requests and invitations a person may send in an hour (in one burst at most)."""
POOL_JOINS_PER_ADDRESS_PER_MINUTE = int(os.environ.get("POOL_JOINS_PER_ADDRESS_PER_MINUTE", "40"))
SOCIAL_REQUESTS_PER_ADDRESS_PER_HOUR = int(os.environ.get("SOCIAL_REQUESTS_PER_ADDRESS_PER_HOUR", "60"))
"""Pool joins, and friend requests and invitations, from one browser address, whatever its accounts:
accounts cost nothing to make, an address does. Twice one person's budget (a household or a café
shares an address); a farm of accounts behind one gets no more than two people do."""
SOCIAL_REQUESTS_RECEIVED_PER_HOUR = int(os.environ.get("SOCIAL_REQUESTS_RECEIVED_PER_HOUR", "10"))
"""Friend requests and invitations one person may receive in an hour, from everyone together (each
is a notice and a toast): past it the sender is told to try later, and the person sees no more."""

# --- Chat and rated play ---------------------------------------------------------------------------------
CHAT_MESSAGES_PER_10_SECONDS = int(os.environ.get("CHAT_MESSAGES_PER_10_SECONDS", "5"))
"""Chat messages a person may send in ten seconds (in one burst at most), at all tables together."""
CHAT_REPEAT_SECONDS = 30
"""A person's message the same as their last one at the table within this long is refused."""
RATED_MIN_ACCOUNT_AGE_SECONDS = float(os.environ.get("RATED_MIN_ACCOUNT_AGE_SECONDS", "86400"))
"""How old an account with a confirmed email must be before its matches are rated: a day, so a
farm of fresh accounts costs a day of waiting per batch, while a newcomer plays casual meanwhile."""
RATED_PAIR_DAILY = int(os.environ.get("RATED_PAIR_DAILY", "3"))
"""Rated matches two people may play together in 24 hours; their later ones that day are casual, so two
friends (or two accounts of one person) cannot trade rating points all day long."""
CHAT_FREE_TEXT_MATCHES = int(os.environ.get("CHAT_FREE_TEXT_MATCHES", "3"))
"""Matches with people an account must have finished before it may type (until then, quick phrases)."""
CHAT_REPORTS_PER_HOUR = int(os.environ.get("CHAT_REPORTS_PER_HOUR", "30"))
"""Reports and ignores a person may make in an hour (in one burst at most)."""
CHAT_REPORTS_PER_ADDRESS_PER_HOUR = int(os.environ.get("CHAT_REPORTS_PER_ADDRESS_PER_HOUR", "60"))
"""Reports and ignores from one browser address in an hour, whatever its accounts (two people's)."""
CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE = int(os.environ.get("CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE", "6"))
"""Times a host may switch "quick phrases only" on or off in a minute (in one burst at most)."""

# --- A person's own data ---------------------------------------------------------------------------------
DATA_EXPORTS_PER_DAY = int(os.environ.get("DATA_EXPORTS_PER_DAY", "3"))
"""Downloads a person may have prepared in a day (each reads their whole history)."""
DATA_EXPORTS_PER_ADDRESS_PER_DAY = int(os.environ.get("DATA_EXPORTS_PER_ADDRESS_PER_DAY", "6"))
"""Downloads asked for from one browser address in a day, whatever its accounts (two people's)."""
CLOSE_ACCOUNT_ATTEMPTS_PER_HOUR = int(os.environ.get("CLOSE_ACCOUNT_ATTEMPTS_PER_HOUR", "10"))
"""Passwords a person may try in an hour on the page that closes their account."""
CLOSE_ACCOUNT_ATTEMPTS_PER_ADDRESS_PER_HOUR = int(
    os.environ.get("CLOSE_ACCOUNT_ATTEMPTS_PER_ADDRESS_PER_HOUR", "20")
)
"""Passwords tried from one browser address in an hour to close accounts, whatever the accounts (each
try is a password hash and, on success, a scan of every session)."""

# --- Logins ----------------------------------------------------------------------------------------------
LOGIN_ATTEMPTS_LIMIT = int(os.environ.get("LOGIN_ATTEMPTS_LIMIT", "10"))
LOGIN_ATTEMPTS_WINDOW = int(os.environ.get("LOGIN_ATTEMPTS_WINDOW", "900"))
"""Logins stop for LOGIN_ATTEMPTS_WINDOW seconds after LOGIN_ATTEMPTS_LIMIT failures from one address
(whatever the accounts) or on one account (whatever the addresses)."""

# --- Registration ----------------------------------------------------------------------------------------
REGISTRATIONS_PER_ADDRESS_PER_HOUR = int(os.environ.get("REGISTRATIONS_PER_ADDRESS_PER_HOUR", "5"))
"""Registration forms one address may send in an hour (in one burst at most): throwaway accounts cost
a script an hour per handful, while a family or a café behind one address still signs up."""
REGISTRATION_MIN_FORM_SECONDS = float(os.environ.get("REGISTRATION_MIN_FORM_SECONDS", "3"))
"""A registration form sent back sooner than this after it was shown is refused: no person types a
name, an email and a password twice that fast, a naive script does."""

# --- Email confirmation ----------------------------------------------------------------------------------
EMAIL_CONFIRMATION_SENDS_PER_HOUR = int(os.environ.get("EMAIL_CONFIRMATION_SENDS_PER_HOUR", "3"))
"""Confirmation links a person may have mailed to them again in an hour (in one burst at most)."""

# --- Replays, sockets, practice uploads ------------------------------------------------------------------
# --- Replays (a budget per person, shared by every process) ---------------------
REPLAY_STEPS_PER_SECOND = float(os.environ.get("REPLAY_STEPS_PER_SECOND", "10"))
REPLAY_STEPS_BURST = float(os.environ.get("REPLAY_STEPS_BURST", "60"))
"""A person asks for REPLAY_STEPS_BURST replay steps at once and REPLAY_STEPS_PER_SECOND on end, far
more than Play (2.5 a second at its fastest) or a held arrow key asks; the first step of a replay not
cached walks the whole match and counts as more (``history.selectors.replay_cost``). Beyond: 429."""

# --- Websocket frames (a budget per person, shared by every process) -------------
SOCKET_FRAMES_PER_SECOND = float(os.environ.get("SOCKET_FRAMES_PER_SECOND", "10"))
SOCKET_FRAMES_BURST = float(os.environ.get("SOCKET_FRAMES_BURST", "30"))
"""A person's live pages' sockets together (a visitor not logged in: their address's) may send
SOCKET_FRAMES_BURST frames at once and SOCKET_FRAMES_PER_SECOND on end (moves, "back", stale or
unreadable frames alike), far more than anyone clicks; a socket that sends more is closed (code 4029)
and its page says why instead of reconnecting. Kept in Redis (in the process, embedded): a socket
reconnected starts where the last left off."""

# --- Practice uploads (a budget per person, shared by every process) ------------
PRACTICE_UPLOADS_PER_HOUR = float(os.environ.get("PRACTICE_UPLOADS_PER_HOUR", "60"))
PRACTICE_UPLOAD_BURST = float(os.environ.get("PRACTICE_UPLOAD_BURST", "10"))
PRACTICE_REFUSED_UPLOAD_STEPS = float(os.environ.get("PRACTICE_REFUSED_UPLOAD_STEPS", "5"))
PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR = float(os.environ.get("PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR", "120"))
PRACTICE_UPLOAD_ADDRESS_BURST = float(os.environ.get("PRACTICE_UPLOAD_ADDRESS_BURST", "20"))
"""A person saves PRACTICE_UPLOAD_BURST practice matches at once (a device's matches played offline)
and PRACTICE_UPLOADS_PER_HOUR on end, a long match counting as several (the longest allowed as the
burst); an upload that is refused (it does not replay, or is malformed) costs
PRACTICE_REFUSED_UPLOAD_STEPS more, so forging costs more than playing (see
``gameplay.services.practice_record``). One browser address, whatever its accounts, spends the same
from PRACTICE_UPLOAD_ADDRESS_BURST refilled at PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR (two people's;
the address's burst must hold the longest match, PRACTICE_UPLOAD_BURST)."""
PRACTICE_MATCHES_KEPT = int(os.environ.get("PRACTICE_MATCHES_KEPT", "1000"))
"""The most practice matches one person's history keeps; beyond it a save is refused."""
