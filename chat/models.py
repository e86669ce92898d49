from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import named_by_id


class Room(models.TextChoices):
    """Who a message is for: the people seated at the table, or those watching it."""

    PLAYERS = "players", _("players")
    WATCHERS = "watchers", _("spectators")


class ChatMessage(models.Model):
    """One thing said at a table: a quick phrase (its key, shown in each reader's language) or free
    text (as typed, and as readers see it once the word list has masked it). Written by
    ``chat.services`` only; kept with the match it was said in, at the move it was said."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.CASCADE, related_name="chat_messages", verbose_name=_("table")
    )
    match = models.ForeignKey(
        "gameplay.Match",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="chat_messages",
        verbose_name=_("match"),
        help_text=_("Empty: said in the waiting room."),
    )
    move_index = models.PositiveIntegerField(
        _("after move"), default=0, help_text=_("Moves made when it was said.")
    )
    room = models.CharField(_("room"), max_length=8, choices=Room.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_messages",
        verbose_name=_("author"),
    )
    phrase = models.CharField(_("quick phrase"), max_length=16, blank=True)
    text = models.CharField(_("text as typed"), max_length=200, blank=True)
    shown = models.CharField(
        _("text as shown"), max_length=200, blank=True, help_text=_("Words on the list masked.")
    )
    created_at = models.DateTimeField(_("said"), auto_now_add=True)
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("removed by"),
    )

    class Meta:
        ordering = ["pk"]
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        indexes = [
            models.Index(fields=["table", "room", "id"], name="chat_message_table_room"),
            models.Index(fields=["author", "id"], name="chat_message_author"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=(Q(phrase="") & ~Q(text="")) | (~Q(phrase="") & Q(text="")),
                name="chat_message_phrase_or_text",
            )
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class TableChat(models.Model):
    """A table's chat settings, which its host changes."""

    table = models.OneToOneField(
        "tables.Table",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="chat",
        verbose_name=_("table"),
    )
    phrases_only = models.BooleanField(_("quick phrases only"), default=False)

    class Meta:
        verbose_name = _("table chat")
        verbose_name_plural = _("table chats")

    def __str__(self) -> str:
        return str(self.table)


class Ignore(models.Model):
    """A person whose messages another has chosen not to see, anywhere ("Ignore")."""

    person = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_ignores",
        verbose_name=_("person"),
    )
    ignored = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("ignored")
    )
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("ignored person")
        verbose_name_plural = _("ignored people")
        constraints = [
            models.UniqueConstraint(fields=["person", "ignored"], name="chat_ignore_once"),
            models.CheckConstraint(condition=~Q(person=models.F("ignored")), name="chat_ignore_not_self"),
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class Report(models.Model):
    """A message a reader reported, waiting for a moderator (the queue) until handled."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", _("insults or harassment")
        SPAM = "spam", _("spam or advertising")
        CHEATING = "cheating", _("cheating or sharing cards")
        OTHER = "other", _("something else")

    message = models.ForeignKey(
        ChatMessage, on_delete=models.CASCADE, related_name="reports", verbose_name=_("message")
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_reports",
        verbose_name=_("reported by"),
    )
    reason = models.CharField(_("reason"), max_length=10, choices=Reason.choices)
    created_at = models.DateTimeField(_("reported"), auto_now_add=True)
    handled_at = models.DateTimeField(_("handled"), null=True, blank=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("handled by"),
    )

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        permissions = [
            ("moderate_chat", _("Can warn, suspend from chat, remove messages and keep the word list"))
        ]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once")]
        indexes = [
            models.Index(fields=["created_at"], condition=Q(handled_at__isnull=True), name="chat_report_open")
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class Suspension(models.Model):
    """A moderator's ban from chat: the person reads the chat but says nothing in it until ``until``
    (empty: for good), or until a moderator lifts it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_suspensions",
        verbose_name=_("person"),
    )
    until = models.DateTimeField(_("until"), null=True, blank=True, help_text=_("Empty: for good."))
    reason = models.CharField(_("reason"), max_length=200)
    created_at = models.DateTimeField(_("from"), auto_now_add=True)
    lifted_at = models.DateTimeField(_("lifted"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("chat suspension")
        verbose_name_plural = _("chat suspensions")
        indexes = [
            models.Index(fields=["user"], condition=Q(lifted_at__isnull=True), name="chat_suspension_live")
        ]

    def __str__(self) -> str:
        return named_by_id(self)


class ModerationAction(models.Model):
    """What a moderator did about the chat, by whom and why: the record every action leaves."""

    class Kind(models.TextChoices):
        WARN = "warn", _("warned")
        SUSPEND = "suspend", _("suspended from chat")
        LIFT = "lift", _("suspension lifted")
        REMOVE = "remove", _("message removed")
        BAN = "ban", _("account banned")
        DISMISS = "dismiss", _("report dismissed")
        WORD_ADD = "word_add", _("word added to the list")
        WORD_REMOVE = "word_remove", _("word removed from the list")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("moderator")
    )
    kind = models.CharField(_("action"), max_length=12, choices=Kind.choices)
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="chat_moderation",
        verbose_name=_("person"),
    )
    message = models.ForeignKey(
        ChatMessage,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("message"),
    )
    report = models.ForeignKey(
        Report,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="actions",
        verbose_name=_("report"),
    )
    reason = models.CharField(_("why"), max_length=200)
    detail = models.CharField(_("detail"), max_length=200, blank=True, help_text=_("How long, which word."))
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    seen_at = models.DateTimeField(
        _("seen by the person"), null=True, blank=True, help_text=_("For a warning.")
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("moderation action")
        verbose_name_plural = _("moderation actions")

    def __str__(self) -> str:
        return named_by_id(self)


class BannedWord(models.Model):
    """A word the chat masks, kept by moderators; stored folded (``chat.wording.fold``) so "Prost",
    "PR0ST" and "próst" are one entry. A trailing ``*`` masks every word that begins with it."""

    word = models.CharField(_("word"), max_length=40, unique=True)
    created_at = models.DateTimeField(_("added"), auto_now_add=True)

    class Meta:
        ordering = ["word"]
        verbose_name = _("masked word")
        verbose_name_plural = _("masked words")

    def __str__(self) -> str:
        return self.word
