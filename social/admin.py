"""The social layer in the admin, read-only (these rows are each person's own, written through
``social.services``): moderators read who looks in the pools (a pairing dodged); friendships, friend
requests, blocks and notices are a superuser's alone."""

from django.contrib import admin

from accounts.admin import ReadOnlyAdmin, SuperusersOnlyAdmin

from .models import Block, FriendRequest, Friendship, Notice, PoolEntry


@admin.register(PoolEntry)
class PoolEntryAdmin(ReadOnlyAdmin):
    list_display = ["user", "pool", "rating", "fill_with_bots", "joined_at", "seen_at", "table"]
    list_filter = ["game"]
    search_fields = ["user__username"]


@admin.register(Friendship)
class FriendshipAdmin(SuperusersOnlyAdmin):
    list_display = ["person", "friend", "since"]
    search_fields = ["person__username", "friend__username"]


@admin.register(FriendRequest)
class FriendRequestAdmin(SuperusersOnlyAdmin):
    list_display = ["sender", "recipient", "created_at"]
    search_fields = ["sender__username", "recipient__username"]


@admin.register(Block)
class BlockAdmin(SuperusersOnlyAdmin):
    list_display = ["blocker", "blocked", "created_at"]
    search_fields = ["blocker__username", "blocked__username"]


@admin.register(Notice)
class NoticeAdmin(SuperusersOnlyAdmin):
    list_display = ["recipient", "kind", "sender", "table", "created_at", "read_at", "closed"]
    list_filter = ["kind", "closed"]
    search_fields = ["recipient__username", "sender__username"]
