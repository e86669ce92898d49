"""Every budget and cap the site sets on what one person or one address may do, each said once.

Each ``Limit`` names its setting, its default and what it guards; the setting is read from the
environment of the same name (unless ``fixed``) and exported under that name, so ``settings.NAME``
reads it as before. ``docs/limits.md`` is written from this list (``manage.py limitsdoc``). A budget
"per hour" is a token bucket (``accounts.limits``): all of it may be spent at once, and it refills
steadily over the hour.
"""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    """A part of the site whose limits are read together."""

    title: str
    note: str = ""


@dataclass(frozen=True)
class Limit:
    """One setting that caps what a person or an address may do, and why it exists."""

    name: str
    default: int | float
    guards: str
    area: Area
    fixed: bool = False
    """Said in code only: no environment variable changes it."""

    @property
    def value(self) -> int | float:
        """The environment's value (of the default's type), else the default."""
        if self.fixed:
            return self.default
        return type(self.default)(os.environ.get(self.name, self.default))


SOCKETS = Area(
    "Live pages and replays",
    "Kept in Redis (in the process, embedded), shared by every server process: a socket reconnected "
    "starts where the last left off.",
)
POOL = Area(
    "The pairing pool, friends and invitations",
    "An address's budget is twice one person's (a household or a café shares an address): accounts cost "
    "nothing to make, an address does, so a farm of accounts behind one gets no more than two people do.",
)
CHAT = Area("Chat")
RATED = Area("Rated play")
ACCOUNTS = Area("Accounts")
OWN_DATA = Area("A person's own data")
TOURNAMENTS = Area(
    "Tournaments",
    "Joining and leaving spend one budget (a join, a pause, a withdrawal, a return alike); an address's is "
    "twice a person's.",
)
OWN_PACE = Area(
    "Matches at your own pace",
    "A person's matches at their own pace wait for them for days: a cap on how many, and on the days of "
    "holiday that stop their clocks.",
)
NOTIFICATIONS = Area(
    "Notifications",
    "Spent by the worker as each goes out: a push over its budget is dropped (an hour late it is noise), an "
    "email over its budget waits until the budget holds one.",
)
PUSH_DEVICES = Area(
    "Web push on a person's devices",
    "Turning notifications on or off for a device on the settings page; the subscription a browser sends "
    "is checked before it is kept (`notifications.services.subscriptions`).",
)
REVIEWS = Area(
    "Reviews",
    "A review keeps a worker core busy for seconds, so it is asked for from a daily budget, spent before it "
    "is queued; a review asked for again (a second tab, a double click) is the same one and costs nothing.",
)
API = Area(
    "The API",
    "Every request spends one token from its access token's budget, its person's (all their tokens and their "
    "bot accounts' together) and its address's before any work; a request without a token spends from its "
    "address's smaller budget only. A refusal says how long to wait (`Retry-After`).",
)
PRACTICE = Area(
    "Practice uploads",
    "A long match counts as several uploads (the longest allowed as the whole burst), and one refused "
    "(it does not replay, or is malformed) costs more, so forging costs more than playing "
    "(`practice.uploads.practice_record`). The address's burst must hold the longest match.",
)

LIMITS = [
    Limit(
        "SOCKET_FRAMES_PER_SECOND",
        10.0,
        "Frames a person's live pages' sockets together (a visitor's: their address's) may send a second "
        'on end: moves, "back", stale or unreadable frames alike, far more than anyone clicks. A socket '
        "that sends more is closed (code 4029) and its page says why instead of reconnecting.",
        SOCKETS,
    ),
    Limit("SOCKET_FRAMES_BURST", 30.0, "Frames those sockets may send at once.", SOCKETS),
    Limit(
        "REPLAY_STEPS_PER_SECOND",
        10.0,
        "Replay steps a person may ask for a second on end, far more than Play (2.5 a second at its "
        "fastest) or a held arrow key asks; beyond, 429.",
        SOCKETS,
    ),
    Limit(
        "REPLAY_STEPS_BURST",
        60.0,
        "Replay steps a person may ask for at once; the first step of a replay not cached walks the whole "
        "match and counts as more (`history.selectors.replay_cost`).",
        SOCKETS,
    ),
    Limit("POOL_JOINS_PER_MINUTE", 20, "Times a person may join the pool in a minute.", POOL),
    Limit(
        "POOL_JOINS_PER_ADDRESS_PER_MINUTE",
        40,
        "Pool joins from one browser address in a minute, whatever its accounts.",
        POOL,
    ),
    Limit(
        "SOCIAL_REQUESTS_PER_HOUR", 30, "Friend requests and invitations a person may send in an hour.", POOL
    ),
    Limit(
        "SOCIAL_REQUESTS_PER_ADDRESS_PER_HOUR",
        60,
        "Friend requests and invitations from one browser address in an hour, whatever its accounts.",
        POOL,
    ),
    Limit(
        "SOCIAL_REQUESTS_RECEIVED_PER_HOUR",
        10,
        "Friend requests and invitations one person may receive in an hour, from everyone together (each "
        "is a notice and a toast): past it the sender is told to try later, and the person sees no more.",
        POOL,
    ),
    Limit(
        "CHAT_MESSAGES_PER_10_SECONDS",
        5,
        "Chat messages a person may send in ten seconds, at all tables together.",
        CHAT,
    ),
    Limit(
        "CHAT_REPEAT_SECONDS",
        30,
        "A person's message the same as their last one at the table within this many seconds is refused.",
        CHAT,
        fixed=True,
    ),
    Limit(
        "CHAT_FREE_TEXT_MATCHES",
        3,
        "Matches with people an account must have finished before it may type (until then, quick phrases).",
        CHAT,
    ),
    Limit("CHAT_REPORTS_PER_HOUR", 30, "Reports and ignores a person may make in an hour.", CHAT),
    Limit(
        "CHAT_REPORTS_PER_ADDRESS_PER_HOUR",
        60,
        "Reports and ignores from one browser address in an hour, whatever its accounts (two people's).",
        CHAT,
    ),
    Limit(
        "CHAT_PHRASES_ONLY_TOGGLES_PER_MINUTE",
        6,
        'Times a host may switch "quick phrases only" on or off in a minute.',
        CHAT,
    ),
    Limit(
        "RATED_MIN_ACCOUNT_AGE_SECONDS",
        86400.0,
        "How old an account with a confirmed email must be before its matches are rated: a day, so a farm "
        "of fresh accounts costs a day of waiting per batch, while a newcomer plays casual meanwhile.",
        RATED,
    ),
    Limit(
        "RATED_PAIR_DAILY",
        3,
        "Rated matches two people may play together in 24 hours; their later ones that day are casual, so "
        "two friends (or two accounts of one person) cannot trade rating points all day long.",
        RATED,
    ),
    Limit(
        "LOGIN_ATTEMPTS_LIMIT",
        10,
        "Failed logins from one address (whatever the accounts) or on one account (whatever the "
        "addresses) after which logins stop for LOGIN_ATTEMPTS_WINDOW.",
        ACCOUNTS,
    ),
    Limit(
        "LOGIN_ATTEMPTS_WINDOW",
        900,
        "Seconds logins stay stopped after LOGIN_ATTEMPTS_LIMIT failures.",
        ACCOUNTS,
    ),
    Limit(
        "REGISTRATIONS_PER_ADDRESS_PER_HOUR",
        5,
        "Registration forms one address may send in an hour: throwaway accounts cost a script an hour per "
        "handful, while a family or a café behind one address still signs up.",
        ACCOUNTS,
    ),
    Limit(
        "REGISTRATION_MIN_FORM_SECONDS",
        3.0,
        "A registration form sent back sooner than this after it was shown is refused: no person types a "
        "name, an email and a password twice that fast, a naive script does.",
        ACCOUNTS,
    ),
    Limit(
        "BOT_ACCOUNTS_PER_PERSON",
        5,
        "Bot accounts one person may have open at once (a banned one still counts; a closed one does not).",
        ACCOUNTS,
    ),
    Limit(
        "BOT_REGISTRATIONS_PER_DAY",
        3,
        "Bot accounts one person may register in a day: closing one and registering another is no way "
        "to mint throwaway names.",
        ACCOUNTS,
    ),
    Limit(
        "BOT_REGISTRATIONS_PER_ADDRESS_PER_DAY",
        6,
        "Bot accounts registered from one browser address in a day, whatever its people's accounts.",
        ACCOUNTS,
    ),
    Limit(
        "EMAIL_CONFIRMATION_SENDS_PER_HOUR",
        3,
        "Confirmation links a person may have mailed to them again in an hour.",
        ACCOUNTS,
    ),
    Limit(
        "DATA_EXPORTS_PER_DAY",
        3,
        "Downloads of their data a person may have prepared in a day (each reads their whole history).",
        OWN_DATA,
    ),
    Limit(
        "DATA_EXPORTS_PER_ADDRESS_PER_DAY",
        6,
        "Downloads asked for from one browser address in a day, whatever its accounts (two people's).",
        OWN_DATA,
    ),
    Limit(
        "CLOSE_ACCOUNT_ATTEMPTS_PER_HOUR",
        10,
        "Passwords a person may try in an hour on the page that closes their account.",
        OWN_DATA,
    ),
    Limit(
        "CLOSE_ACCOUNT_ATTEMPTS_PER_ADDRESS_PER_HOUR",
        20,
        "Passwords tried from one browser address in an hour to close accounts, whatever the accounts "
        "(each try is a password hash and, on success, a scan of every session).",
        OWN_DATA,
    ),
    Limit(
        "PRACTICE_UPLOADS_PER_HOUR",
        60.0,
        "Practice matches a person may save in an hour on end.",
        PRACTICE,
    ),
    Limit(
        "PRACTICE_UPLOAD_BURST",
        10.0,
        "Practice matches a person may save at once (a device's matches played offline).",
        PRACTICE,
    ),
    Limit(
        "PRACTICE_REFUSED_UPLOAD_STEPS",
        5.0,
        "What a refused upload costs on top of its own share of the budget.",
        PRACTICE,
    ),
    Limit(
        "PRACTICE_UPLOADS_PER_ADDRESS_PER_HOUR",
        120.0,
        "Practice saves from one browser address in an hour on end, whatever its accounts (two people's).",
        PRACTICE,
    ),
    Limit(
        "PRACTICE_UPLOAD_ADDRESS_BURST",
        20.0,
        "Practice saves from one browser address at once.",
        PRACTICE,
    ),
    Limit(
        "PRACTICE_MAX_ACTIONS",
        20_000,
        "Moves one saved practice match may hold: far beyond the longest match bots play (about 2,600 "
        "actions: Americana to 501 for two). The longest is the whole of a person's burst.",
        PRACTICE,
        fixed=True,
    ),
    Limit(
        "PRACTICE_UPLOAD_MAX_BYTES",
        1_000_000,
        "Bytes one practice save may send, read before anything is parsed: room for the most moves "
        "(about 35 bytes each) and the rest.",
        PRACTICE,
        fixed=True,
    ),
    Limit(
        "TOURNAMENT_ENTRIES_PER_MINUTE",
        10,
        "Times a person may join, pause, withdraw from or come back to tournaments in a minute.",
        TOURNAMENTS,
    ),
    Limit(
        "TOURNAMENT_ENTRIES_PER_ADDRESS_PER_MINUTE",
        20,
        "Tournament joins, pauses and withdrawals from one browser address in a minute.",
        TOURNAMENTS,
    ),
    Limit(
        "TOURNAMENTS_CREATED_PER_DAY",
        3,
        "Private tournaments a person may create in a day.",
        TOURNAMENTS,
    ),
    Limit(
        "TOURNAMENTS_CREATED_PER_ADDRESS_PER_DAY",
        6,
        "Private tournaments created from one browser address in a day, whatever its accounts.",
        TOURNAMENTS,
    ),
    Limit(
        "TOURNAMENT_MAX_PLAYERS",
        2000,
        "The most players one tournament takes; a private one takes at most 64.",
        TOURNAMENTS,
    ),
    Limit(
        "PRACTICE_MATCHES_KEPT",
        1000,
        "The most practice matches one person's history keeps; beyond it a save is refused.",
        PRACTICE,
    ),
    Limit(
        "OWN_PACE_MATCHES_MAX",
        20,
        "Tables at their own pace a person may sit at at once, waiting or playing; the next one is refused "
        "until one ends.",
        OWN_PACE,
    ),
    Limit(
        "OWN_PACE_HOLIDAY_DAYS_A_YEAR",
        30,
        "Days of holiday a person may take in a calendar year (a holiday stops their clocks in every match "
        "at their own pace; a holiday ended early gives its unused whole days back).",
        OWN_PACE,
    ),
    Limit(
        "HOLIDAY_CHANGES_PER_DAY",
        10,
        "Times one person may start a holiday or end one early in a day (each moves the deadlines of all "
        "their matches at their own pace).",
        OWN_PACE,
    ),
    Limit(
        "HOLIDAY_CHANGES_PER_ADDRESS_PER_DAY",
        30,
        "Holidays started or ended early from one browser address in a day, whatever its accounts.",
        OWN_PACE,
    ),
    Limit(
        "NOTIFY_PUSH_PER_HOUR",
        30,
        "Web pushes one person is sent in an hour, whatever they are about (each to every browser they "
        "subscribed).",
        NOTIFICATIONS,
    ),
    Limit(
        "NOTIFY_EMAILS_PER_DAY",
        12,
        "Notification emails one person is sent in a day, all kinds together (besides at most one of each "
        "kind per NOTIFY_EMAIL_PERIOD_MINUTES).",
        NOTIFICATIONS,
    ),
    Limit(
        "NOTIFY_SETTINGS_SAVES_PER_HOUR",
        30,
        "Times one person may save their notification settings in an hour.",
        NOTIFICATIONS,
    ),
    Limit(
        "NOTIFY_SETTINGS_SAVES_PER_ADDRESS_PER_HOUR",
        60,
        "Notification settings saved from one browser address in an hour, whatever its accounts.",
        NOTIFICATIONS,
    ),
    Limit(
        "UNSUBSCRIBES_PER_HOUR",
        20,
        "Times an email's unsubscribe links (no login needed) may be used for one person in an hour.",
        NOTIFICATIONS,
    ),
    Limit(
        "UNSUBSCRIBES_PER_ADDRESS_PER_HOUR",
        60,
        "Unsubscribe links used from one address in an hour, whoever they are for.",
        NOTIFICATIONS,
    ),
    Limit(
        "PUSH_SUBSCRIPTIONS_PER_PERSON",
        10,
        "Devices (browsers) one person may have notifications on in at once; turning on one more forgets "
        "the one turned on longest ago.",
        PUSH_DEVICES,
    ),
    Limit(
        "PUSH_SUBSCRIBE_PER_HOUR",
        20,
        "Times one person may turn notifications on or off for a device in an hour.",
        PUSH_DEVICES,
    ),
    Limit(
        "PUSH_SUBSCRIBE_PER_ADDRESS_PER_HOUR",
        40,
        "Times notifications may be turned on or off from one browser address in an hour, whatever its "
        "accounts.",
        PUSH_DEVICES,
    ),
    Limit(
        "PUSH_SUBSCRIPTION_MAX_BYTES",
        4096,
        "The largest subscription a browser may send (a real one is about 400 bytes).",
        PUSH_DEVICES,
        fixed=True,
    ),
    Limit(
        "REVIEWS_PER_DAY",
        10,
        "Reviews of their own matches a person may ask for in a day.",
        REVIEWS,
    ),
    Limit(
        "REVIEWS_PER_ADDRESS_PER_DAY",
        20,
        "Reviews asked for from one browser address in a day, whatever its accounts.",
        REVIEWS,
    ),
    Limit(
        "REVIEWS_MODERATION_PER_DAY",
        100,
        "Fair-play reviews of other people's seats one moderator may ask for in a day.",
        REVIEWS,
    ),
    Limit(
        "API_TOKENS_HELD", 20, "Live access tokens one person may hold, theirs and their bot accounts'.", API
    ),
    Limit("API_TOKENS_MADE_PER_DAY", 20, "Access tokens one person may make in a day.", API),
    Limit("API_REQUESTS_PER_MINUTE", 120, "API requests one access token may make in a minute.", API),
    Limit(
        "API_PERSON_REQUESTS_PER_MINUTE",
        240,
        "API requests one person's tokens (theirs and their bot accounts') may make together in a minute.",
        API,
    ),
    Limit(
        "API_ADDRESS_REQUESTS_PER_MINUTE",
        480,
        "API requests from one address in a minute, whatever its tokens.",
        API,
    ),
    Limit(
        "API_ANONYMOUS_REQUESTS_PER_MINUTE",
        30,
        "API requests without a token from one address in a minute (public reads only).",
        API,
    ),
    Limit(
        "API_MATCH_RECORDS_PER_HOUR",
        600,
        "Match records one person (or, without a token, one address) may read in an hour, one by one or in "
        "their own match list: the monthly open data files are the way to read every match.",
        API,
    ),
    Limit(
        "API_STREAMS_PER_TOKEN",
        4,
        "Match streams one bot account's token may hold open at once (one per match it plays, a few spare).",
        API,
    ),
    Limit("API_TABLES_PER_HOUR", 30, "Tables one person may make through the API in an hour.", API),
    Limit(
        "API_MAX_BODY_BYTES",
        16384,
        "The largest request body the API reads; a larger one is refused unread.",
        API,
        fixed=True,
    ),
]

__all__ = [limit.name for limit in LIMITS]
globals().update({limit.name: limit.value for limit in LIMITS})
