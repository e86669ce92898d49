"""Mail goes out on a Celery worker so a slow mail server never holds up a page."""

from celery import shared_task
from django.core.mail import EmailMultiAlternatives


@shared_task(autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_email(
    subject: str, body: str, from_email: str | None, to: list[str], html: str | None = None
) -> None:
    message = EmailMultiAlternatives(subject, body, from_email, to)
    if html:
        message.attach_alternative(html, "text/html")
    message.send()
