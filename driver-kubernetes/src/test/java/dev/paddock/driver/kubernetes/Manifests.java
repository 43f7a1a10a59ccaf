package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The manifests under deploy/kubernetes read as typed Kubernetes objects. Strict: a kind the model does not know,
 * or a field it does not know anywhere in an object (fabric8 keeps those in "additional properties"), is a problem.
 */
final class Manifests {
    static final Path DIR = Path.of("..", "deploy", "kubernetes");

    private Manifests() {}

    static List<HasMetadata> all() {
        List<HasMetadata> objects = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) objects.addAll(read(Files.readString(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return objects;
    }

    /** The objects of a multi-document YAML text (documents of comments only are skipped). */
    static List<HasMetadata> read(String yaml) {
        KubernetesSerialization serialization = new KubernetesSerialization();
        List<HasMetadata> objects = new ArrayList<>();
        for (String doc : yaml.split("(?m)^---$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.strip().startsWith("#"))) continue;
            objects.add(serialization.unmarshal(doc, HasMetadata.class));
        }
        return objects;
    }

    /** Unknown kinds and unknown fields, each named with where it is. */
    static List<String> problems(HasMetadata object) {
        List<String> problems = new ArrayList<>();
        String name = object.getKind() + "/" + object.getMetadata().getName();
        if (object instanceof GenericKubernetesResource) problems.add(name + ": unknown kind " + object.getApiVersion() + " " + object.getKind());
        else walk(object, name, problems);
        return problems;
    }

    private static void walk(Object value, String where, List<String> problems) {
        if (value == null) return;
        if (value instanceof Collection<?> c) {
            int i = 0;
            for (Object item : c) walk(item, where + "[" + i++ + "]", problems);
            return;
        }
        if (value instanceof Map<?, ?> m) {
            m.forEach((k, v) -> walk(v, where + "." + k, problems));
            return;
        }
        if (!value.getClass().getPackageName().startsWith("io.fabric8.kubernetes.api.model")) return;
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers()) || !getter.getName().startsWith("get")
                    || getter.getDeclaringClass() == Object.class) continue;
            Object field;
            try {
                field = getter.invoke(value);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> extra && !extra.isEmpty()) problems.add(where + ": unknown field(s) " + extra.keySet());
            } else {
                walk(field, where + "." + getter.getName().substring(3), problems);
            }
        }
    }
}
