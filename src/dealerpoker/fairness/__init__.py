"""Provably fair deals: commitment, HMAC-SHA256 counter-mode stream, unbiased Fisher-Yates."""
