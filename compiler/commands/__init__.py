"""The subcommands of ``rulecraft``, a module each; :mod:`.registry` is what they share.

==========  ==================================================================
module      command
==========  ==================================================================
compile     ``rulecraft compile``: rules to engines (``--check``, ``--native``)
test        ``rulecraft test``: run a game's examples of play
explain     ``rulecraft explain``: a scenario as the compiler reads it
coverage    ``rulecraft coverage``: the rule ids the tests name
sheet       ``rulecraft sheet``: printable reference sheets and record forms
init        ``rulecraft init``: a new rules project
play        ``rulecraft play``: a game at the terminal
simulate    ``rulecraft simulate``: self-play win rates and balance reports
sweep       ``rulecraft sweep``: win rates over a grid of constants
listing     ``rulecraft list``: the compiled games, scenarios and seats
==========  ==================================================================

:mod:`rulecraft.compiler.cli` imports every module here on start; a command never imports
another command.
"""
