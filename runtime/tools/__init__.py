"""What people and bots use around an engine: agents (``agents``), self-play
(``simulate``), the balance report (``balance``) and play at the terminal (``terminal``)."""
