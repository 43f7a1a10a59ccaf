package dev.paddock.server;

import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Bodies;
import io.javalin.config.RoutesConfig;

/**
 * What a {@link RouteModule} registers with: the server's router and the request and response tools every route
 * shares (bounded body reading and the API's JSON), so all routes read and answer alike.
 */
public record RouteContext(RoutesConfig routes, Bodies bodies, ApiJson json) {}
