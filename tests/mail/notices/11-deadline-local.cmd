game deadline g "2026-12-03 18:00"
