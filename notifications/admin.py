from django.contrib import admin

from accounts.admin import ReadOnlyAdmin

from .models import Delivery


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    """The outbox, to see what went out, what waits (quiet hours, a digest's period) and what failed."""

    list_display = ["id", "user", "kind", "way", "due_at", "sent_at", "attempts", "last_error"]
    list_filter = ["kind", "way", ("sent_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "key"]
    date_hierarchy = "created_at"
    raw_id_fields = ["user"]
