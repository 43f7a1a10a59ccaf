package dev.paddock.app.cli;

/** A command that needs the {@link CliContext}; the command factory hands it over on creation. */
public interface ContextAware {
    void context(CliContext ctx);
}
