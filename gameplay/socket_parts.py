"""What other apps add to the table's socket, without gameplay knowing them.

An app above gameplay (the chat) subclasses ``TableSocketPart`` and registers it from its
``AppConfig.ready``; every table page's socket opened after that makes one of each registered part,
which adds to the page's first screen, answers the frames it claims and hears the news whose type
names one of its methods, as a consumer's handlers do (``chat.said`` is heard by ``chat_said``). An app
left out of ``INSTALLED_APPS`` registers nothing, and the table plays on without it.
"""

from tables.consumers import LiveConsumer


class TableSocketPart:
    """One app's part of one table page's socket (``page``), made when the page connects."""

    def __init__(self, page: LiveConsumer) -> None:
        self.page = page

    async def connect(self) -> None:
        """Once the reader may watch the table, before the page joins its news: whatever the part's handlers
        need from the start (a socket turned away costs its parts nothing)."""

    def first_text(self) -> str:
        """What the part adds to the page's first screen (on a worker thread: it may read the
        database)."""
        return ""

    async def receive(self, text_data: str | None) -> bool:
        """Answer the frame if it is this part's, and say so; False leaves it to the table (a move)."""
        return False


_registered: list[type[TableSocketPart]] = []


def register(part: type[TableSocketPart]) -> None:
    """Add ``part`` to every table socket opened from now on (once, however often it is registered)."""
    if part not in _registered:
        _registered.append(part)


def registered() -> tuple[type[TableSocketPart], ...]:
    return tuple(_registered)
