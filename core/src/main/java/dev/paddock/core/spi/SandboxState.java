package dev.paddock.core.spi;

import java.util.EnumSet;
import java.util.Set;

/**
 * The sandbox lifecycle: creating → running ⇄ suspended → terminating → terminated, and failed.
 * {@link #canMoveTo} is the single source of truth for legal transitions.
 */
public enum SandboxState {
    CREATING, RUNNING, SUSPENDED, TERMINATING, TERMINATED, FAILED;

    public boolean isTerminal() {
        return this == TERMINATED || this == FAILED;
    }

    public boolean canMoveTo(SandboxState next) {
        return allowedNext().contains(next);
    }

    public Set<SandboxState> allowedNext() {
        return switch (this) {
            case CREATING -> EnumSet.of(RUNNING, FAILED, TERMINATING);
            case RUNNING -> EnumSet.of(SUSPENDED, TERMINATING, FAILED);
            case SUSPENDED -> EnumSet.of(RUNNING, TERMINATING, FAILED);
            case TERMINATING -> EnumSet.of(TERMINATED, FAILED);
            case TERMINATED, FAILED -> EnumSet.noneOf(SandboxState.class);
        };
    }

    public String wireName() {
        return name().toLowerCase();
    }
}
