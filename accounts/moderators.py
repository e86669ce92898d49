"""The Moderators group: every right it holds, in this one place.

``PERMISSIONS`` is the whole grant. Migration ``accounts/0005_moderators_grants`` sets the group's
permissions to exactly this list (the older migrations that added rights app by app are history). To
change what moderators may do, change the list here and add a migration to accounts that runs
``grant`` as 0005 does, depending on the latest migration of every app the list names; the privacy
page's "Who sees what" is rendered from this module, so it changes with the grant.

Every app above accounts is named here by label only (strings): nothing is imported from them.
"""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

GROUP = "Moderators"

PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("accounts", "view_user"),  # usernames and standing; never the email (the admin hides it)
    ("accounts", "change_user"),  # ban and reinstate, through the actions only
    ("tables", "view_table"),  # never the invitation token (the admin hides it)
    ("tables", "change_table"),  # close
    ("tables", "view_seat"),
    ("tables", "change_seat"),  # replace a player with a bot, ban the player on a seat
    ("gameplay", "view_match"),
    ("gameplay", "change_match"),  # abort
    ("gameplay", "view_move"),
    ("gameplay", "view_roundresult"),
    ("ratings", "view_rating"),
    ("ratings", "view_ratingchange"),
    ("ratings", "view_ratedmatch"),
    ("ratings", "void_ratedmatch"),
    ("social", "view_poolentry"),  # a pairing dodged; never friendships, requests, blocks or notices
    ("chat", "view_chatmessage"),  # the spectators' chat; the players' only around a reported line
    ("chat", "view_report"),
    ("chat", "change_report"),  # decide a report (the form writes nothing itself)
    ("chat", "view_suspension"),
    ("chat", "view_moderationaction"),
    ("chat", "view_bannedword"),
    ("chat", "add_bannedword"),
    ("chat", "delete_bannedword"),
    ("chat", "moderate_chat"),  # warn, suspend, remove, ban, dismiss
    ("tournaments", "view_tournament"),  # never a private tournament's link (the admin hides it)
    ("tournaments", "change_tournament"),  # disqualify a player, cancel, through the actions only
    ("tournaments", "view_entry"),
    ("tournaments", "view_moderatoraction"),
    ("api", "view_accesstoken"),  # whose, what it may do, when last used; never the token itself
    ("api", "revoke_accesstoken"),  # a program abusing the site, through the action only
    ("opendata", "view_dump"),
    ("opendata", "build_dump"),  # a month's open data file built again, through the action only
    ("reviews", "view_review"),  # marks and accuracy; never of a match the moderator played in
    ("reviews", "review_seat"),  # a fair-play case: a seat reviewed, through the service only
)
"""What the Moderators group may do: (app label, permission codename) pairs, and nothing else."""

DUTIES: dict[tuple[str, str], Promise] = {
    ("accounts", "change_user"): _("ban and reinstate players"),
    ("tables", "change_table"): _("close a table"),
    ("tables", "change_seat"): _("give a player's seat to a bot"),
    ("gameplay", "change_match"): _("stop a running match"),
    ("ratings", "void_ratedmatch"): _("void a rated match's rating changes"),
    ("chat", "change_report"): _("decide a chat report"),
    ("chat", "moderate_chat"): _("warn, suspend from chat, remove chat messages"),
    ("chat", "add_bannedword"): _("add words to the chat's masked words"),
    ("chat", "delete_bannedword"): _("take words off the chat's masked words"),
    ("tournaments", "change_tournament"): _("disqualify a tournament's player, cancel a tournament"),
    ("api", "revoke_accesstoken"): _("revoke a program's access token"),
    ("opendata", "build_dump"): _("build a month's open data file again"),
    ("reviews", "review_seat"): _("have a player's seat reviewed for fair play"),
}
"""What each granted right other than reading lets a moderator do, as the privacy page says it."""

NEVER_SHOWN: dict[str, Promise] = {
    "accounts.user.email": _("email addresses"),
    "tables.table.invite_token": _("invitation links"),
    "social.friendship": _("friendships"),
    "social.friendrequest": _("friend requests"),
    "social.block": _("blocks"),
    "social.notice": _("notices"),
    "chat.ignore": _("whom someone ignores"),
    "privacy.dataexport": _("downloads of someone's data"),
    "notifications.delivery": _("the notifications sent to someone"),
    "notifications.pushsubscription": _("the devices someone gets notifications on"),
    "axes.accesslog": _("logins"),
    "api.accesstoken.digest": _("access tokens themselves (the site keeps only a digest)"),
}
"""Personal data moderators never see (a model, or a model's field), as the privacy page names it; a
test holds each to the grant and to the admin."""


def own_case_refusal() -> str:
    """The one refusal for anyone acting on a case they are part of, in the active language."""
    return str(_("Nobody decides a case they are part of: another moderator must."))


def granted() -> list[tuple[str, str]]:
    """``PERMISSIONS`` of the apps installed: an app left out (the chat, ``CHAT_ENABLED``) grants
    nothing, and the privacy page says nothing of it."""
    return [permission for permission in PERMISSIONS if global_apps.is_installed(permission[0])]


def read_names() -> list[str]:
    """The kinds of records moderators read in the admin, in the active language, as the privacy
    page lists them (each granted ``view_`` permission's model)."""
    return [
        str(global_apps.get_model(app_label, codename.removeprefix("view_"))._meta.verbose_name_plural)
        for app_label, codename in granted()
        if codename.startswith("view_")
    ]


def duty_names() -> list[str]:
    """What moderators may do, in the active language, in the grant's order."""
    return [str(DUTIES[permission]) for permission in granted() if permission in DUTIES]


def never_shown_names() -> list[str]:
    """``NEVER_SHOWN`` of the apps installed, in the active language, as the privacy page lists them: an
    app left out keeps nothing to hide."""
    return [str(name) for key, name in NEVER_SHOWN.items() if global_apps.is_installed(key.split(".")[0])]


def _made_later(apps, app_label: str, codename: str) -> bool:
    """Whether ``codename`` belongs to a model of the code as it is now that the migration state
    ``apps`` does not hold yet (a later migration creates it)."""
    for model in global_apps.get_app_config(app_label).get_models():
        opts = model._meta
        codenames = {f"{action}_{opts.model_name}" for action in opts.default_permissions}
        if codename in codenames | {name for name, _label in opts.permissions}:
            try:
                apps.get_model(app_label, opts.model_name)
            except LookupError:
                return True
            return False
    return False


def grant(apps, schema_editor) -> None:
    """Set the group's permissions to exactly ``granted()`` (a migration's ``RunPython``, on the
    migration's ``apps``). Django makes permissions after all migrations run, so the ones needed are
    made here first. A permission whose model a later migration creates is left to that later
    migration's own run of this function; any other missing permission is an error in the list."""
    using = schema_editor.connection.alias
    grant_list = granted()
    for label in {app_label for app_label, _codename in grant_list}:
        create_permissions(global_apps.get_app_config(label), verbosity=0, using=using, apps=apps)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    permissions = []
    for app_label, codename in grant_list:
        rights = Permission.objects.using(using).filter(content_type__app_label=app_label, codename=codename)
        permission = rights.first()
        if permission is not None:
            permissions.append(permission)
        elif not _made_later(apps, app_label, codename):
            raise LookupError(f"The Moderators' grant names {app_label}.{codename}, which no model has.")
    group, _created = Group.objects.using(using).get_or_create(name=GROUP)
    group.permissions.set(permissions)
