"""Zha Jin Hua (炸金花, `zhajinhua`): hand evaluator, betting engine and settlement, bot.

Rules: docs/rules/zhajinhua.md. `game.ZHAJINHUA` is the game object.
"""
