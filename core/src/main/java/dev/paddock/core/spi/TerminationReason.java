package dev.paddock.core.spi;

/** Why a sandbox was terminated; recorded in its events. */
public enum TerminationReason { USER_REQUEST, LIFETIME_EXPIRED, IDLE_EXPIRED, ORPHAN_REAPED, CREATE_FAILED, HOST_SHUTDOWN, BACKEND_LOST }
