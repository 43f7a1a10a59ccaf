package dev.paddock.images;

import java.util.List;

/** What an image archive describes: its layers in apply order, a human reference and the config's env. */
record OciImage(List<OciLayer> layers, String ref, List<String> env) {}
