"""What moderators read of the social layer: who looks in the pools, friendships, requests, blocks and
notices. Read-only: these rows are each person's own, written through ``social.services``."""

from django.contrib import admin

from ratings.admin import ReadOnlyAdmin

from .models import Block, FriendRequest, Friendship, Notice, PoolEntry


@admin.register(PoolEntry)
class PoolEntryAdmin(ReadOnlyAdmin):
    list_display = ["user", "pool", "rating", "fill_with_bots", "joined_at", "seen_at", "table"]
    list_filter = ["game"]
    search_fields = ["user__username"]


@admin.register(Friendship)
class FriendshipAdmin(ReadOnlyAdmin):
    list_display = ["person", "friend", "since"]
    search_fields = ["person__username", "friend__username"]


@admin.register(FriendRequest)
class FriendRequestAdmin(ReadOnlyAdmin):
    list_display = ["sender", "recipient", "created_at"]
    search_fields = ["sender__username", "recipient__username"]


@admin.register(Block)
class BlockAdmin(ReadOnlyAdmin):
    list_display = ["blocker", "blocked", "created_at"]
    search_fields = ["blocker__username", "blocked__username"]


@admin.register(Notice)
class NoticeAdmin(ReadOnlyAdmin):
    list_display = ["recipient", "kind", "sender", "table", "created_at", "read_at", "closed"]
    list_filter = ["kind", "closed"]
    search_fields = ["recipient__username", "sender__username"]
