"""Sending on the channel layer with back-pressure: a full channel is waited on, not lost.

channels_redis keeps every channel of a process (its inbox and the reply channels of the
exchanges it relays) in one Redis list, bounded by the layer's capacity
(LOCALROUTER_CHANNEL_CAPACITY). When the list is full `send` raises `ChannelFull`; the
process on the other end is draining it, so the message is sent again a little later,
until `within` seconds have passed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels.exceptions import ChannelFull

FIRST_PAUSE = 0.005
LONGEST_PAUSE = 0.25


class ChannelStaysFull(Exception):
    """The channel stayed full for as long as the sender could wait."""


async def send_patiently(layer: Any, channel: str, message: dict, *, within: float) -> None:
    """`layer.send`, again after a growing pause for as long as the channel is full.

    Raises:
        ChannelStaysFull: it was still full after `within` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    pause = FIRST_PAUSE
    while True:
        try:
            await layer.send(channel, message)
            return
        except ChannelFull:
            if loop.time() + pause > deadline:
                raise ChannelStaysFull(channel) from None
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)
