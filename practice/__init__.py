"""Practice against bots: the offline table that runs in the player's browser, and saving its
matches to history."""
