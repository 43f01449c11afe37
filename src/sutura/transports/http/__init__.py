"""The HTTP JSON API (``sutura serve``): litestar over uvicorn, msgspec bodies,
one closed error channel.
"""
