package dev.paddock.app.client;

/** One Server-Sent Event: its {@code event:} name (default {@code message}) and its joined {@code data:} lines. */
public record SseEvent(String event, String data) {}
