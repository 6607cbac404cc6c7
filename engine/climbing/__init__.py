"""Climbing card games (Dou Dizhu, wild-card Dou Dizhu, Pao De Kuai) on one move engine (`moves`)."""
