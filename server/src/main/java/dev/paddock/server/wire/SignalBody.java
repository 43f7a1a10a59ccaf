package dev.paddock.server.wire;

import tools.jackson.databind.JsonNode;

/** Body of the process signal endpoint: a name such as {@code "TERM"} or a number. */
public record SignalBody(JsonNode signal) {}
