"""Research APIs over any compiled scenario, each an optional extra.

| module | extra | what |
|---|---|---|
| ``openspiel`` | ``rulecraft[openspiel]`` | the OpenSpiel game ``rulecraft(game=G/S)`` |
| ``pettingzoo`` | ``rulecraft[pettingzoo]`` | ``RulecraftEnv``, a PettingZoo AEC environment |
| ``encoding`` | (numpy) | the action numbering and observation vector both share |

Nothing here is imported by the rest of the runtime; importing ``openspiel`` registers the
game with ``pyspiel``. See docs/runtime.md, "Research APIs".
"""
