"""Zha Jin Hua (炸金花, `zhajinhua`): hand evaluator, betting engine and settlement, bot.

Rules: shared/rules/zhajinhua.md. `game.ZHAJINHUA` is the game object.
"""
