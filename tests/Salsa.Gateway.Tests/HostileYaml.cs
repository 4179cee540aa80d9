using System.Globalization;
using System.Text;

namespace Salsa.Gateway.Tests;

/// <summary>
/// Workflow texts built to hurt a YAML reader: recursion through aliases in lists, mappings and merge
/// keys; aliases before their anchors, alone and as a bomb; bombs of aliases after their anchors, deep
/// and wide; one long scalar repeated by thousands of aliases; aliases and collections as keys;
/// nesting grown by aliases; anchors redefined; duplicate keys, tags, several documents, numbers
/// beyond a double — each placed where a workflow has a value (a parameter, an input, a step, a
/// retry, <c>after</c>, a name) and under keys it does not have. Plus <see cref="Random"/> texts:
/// nodes with anchors and aliases drawn at random, of every kind above and any mix.
/// </summary>
internal static class HostileYaml
{
    /// <summary>Flow-style values (one line each) and what a reader must answer: refused (true) or maybe accepted (false).</summary>
    public static readonly (string Name, string Value, bool Refused)[] Values =
    [
        ("list holding itself", "&r [*r]", true),
        ("mapping holding itself", "&r {a: *r}", true),
        ("merge key of itself", "&r {<<: *r}", true),
        ("itself three levels down", "&r [a, [b, {c: *r}]]", true),
        ("alias before its anchor", "[*a, &a x]", true),
        ("alias of no anchor", "[*nothing]", true),
        ("alias as a key", "{&k a: 1, *k : 2}", true),
        ("alias of a mapping as a key", "[&k {a: 1}, {*k : 2}]", true),
        ("list as a key", "{[a, b]: 1}", true),
        ("explicit complex key", "{? [a, b] : 1}", true),
        ("mapping as a key", "{{a: 1}: 2}", true),
        ("duplicate keys", "{a: 1, a: 2}", true),
        ("anchor redefined around itself", "[&x 1, &x [*x, *x]]", true),
        ("number beyond a double", "1e400", true),
        ("negative number beyond a double", "[-1e400]", true),
        ("alias of a finished anchor", "[&a x, *a, *a]", false),
        ("anchor redefined after use", "[&x 1, *x, &x 2, *x]", false),
        ("alias of a key's anchor as a value", "{&k a: *k}", false),
        ("binary tag", "!!binary aGVsbG8=", false),
        ("local tag", "!thing {a: 1}", false),
        ("merge of two anchors", "[&a {x: 1}, &b {y: 2}, {<<: [*a, *b]}]", false),
        ("infinity written as YAML", "[.inf, -.inf, .nan]", false),
    ];

    /// <summary>Where a value stands in a workflow: <c>{0}</c> is the value.</summary>
    public static readonly (string Name, string Template)[] Places =
    [
        ("a parameter", Step("parameters: { source: indiana-1000, groupColumns: {0} }")),
        ("an unknown parameter", Step("parameters: { source: indiana-1000, junk: {0} }")),
        ("the parameters", Step("parameters: {0}")),
        ("the inputs", Step("inputs: {0}\n    parameters: { source: indiana-1000 }")),
        ("after", Step("after: {0}\n    parameters: { source: indiana-1000 }")),
        ("retry", Step("retry: {0}\n    parameters: { source: indiana-1000 }")),
        ("retry's backoff", Step("retry: { attempts: 2, backoff: {0} }\n    parameters: { source: indiana-1000 }")),
        ("the step", "name: hostile\nsteps:\n  a: {0}\n"),
        ("the steps", "name: hostile\nsteps: {0}\n"),
        ("the name", "name: {0}\nsteps:\n  a:\n    service: census\n    operation: import\n    parameters: { source: indiana-1000 }\n"),
        ("an unknown top-level key", "name: hostile\njunk: {0}\n" + Step("parameters: { source: indiana-1000 }")["name: hostile\n".Length..]),
    ];

    /// <summary>Whole texts: bombs and the like, whose anchors and aliases span several lines.</summary>
    public static IEnumerable<(string Name, string Yaml)> Documents()
    {
        yield return ("bomb: 9 levels of 9, aliases after anchors", Bomb(9, 9, forward: false));
        yield return ("bomb: 8 levels of 8, aliases before anchors", Bomb(8, 8, forward: true));
        yield return ("bomb: 3 levels of 120 (wide)", Bomb(3, 120, forward: false));
        yield return ("bomb: 2 levels of 1,000 aliases before anchors", Bomb(2, 1000, forward: true));
        yield return ("a 180 KB scalar aliased 15,000 times", LongScalarRepeated(180_000, 15_000));
        yield return ("a 1 MB scalar aliased twice", LongScalarRepeated(1 << 20, 2));
        yield return ("nesting grown by aliases", DeepThroughAliases(levelsPerAnchor: 40, anchors: 3));
        yield return ("50,000 nested lists", Step($"parameters: {{ source: indiana-1000, deep: {new string('[', 50_000)}x{new string(']', 50_000)} }}"));
        yield return ("two documents", "name: a\nsteps: {}\n---\nname: b\n");
        yield return ("an undefined tag handle", Step("parameters: { source: !x!y indiana-1000 }"));
        yield return ("an anchor on an alias", Step("parameters: { source: &a *b }"));
        yield return ("a directive out of place", "name: a\n%YAML 1.2\n---\nsteps: {}\n");
        yield return ("a tab for indentation", "name: a\nsteps:\n\ta: {}\n");
        yield return ("a key of 100,000 characters", Step($"parameters: {{ source: indiana-1000, {new string('k', 100_000)}: 1 }}"));
        yield return ("100,000 anchors", Step($"parameters: {{ source: indiana-1000, groupColumns: [{string.Join(", ", Enumerable.Range(0, 100_000).Select(i => string.Create(CultureInfo.InvariantCulture, $"&a{i} x")))}] }}"));
        yield return ("retry backoff of 2000 hours", Step("retry: { attempts: 3, backoff: 2000h }\n    parameters: { source: indiana-1000 }"));
        yield return ("timeout of 10,000 days", Step("timeout: 240000h\n    parameters: { source: indiana-1000 }"));
        yield return ("timeout beyond TimeSpan", Step("timeout: 99999999999999999999h\n    parameters: { source: indiana-1000 }"));
        foreach (var (value, valueText, _) in Values)
        {
            foreach (var (place, template) in Places)
            {
                yield return ($"{value} in {place}", template.Replace("{0}", valueText, StringComparison.Ordinal));
            }
        }
    }

    /// <summary>A census import with <paramref name="rest"/> (its other keys, indented for a step) after its service and operation.</summary>
    public static string Step(string rest) => $"name: hostile\nsteps:\n  a:\n    service: census\n    operation: import\n    {rest}\n";

    /// <summary>
    /// "Billion laughs": <paramref name="levels"/> levels, each a list of <paramref name="width"/> aliases
    /// of the next level down; the anchors written before their aliases, or (<paramref name="forward"/>)
    /// after them, the top level first.
    /// </summary>
    public static string Bomb(int levels, int width, bool forward)
    {
        var lines = new List<string> { $"      l0: &l0 [{string.Join(", ", Enumerable.Repeat("lol", width))}]" };
        for (var level = 1; level < levels; level++)
        {
            lines.Add($"      l{level}: &l{level} [{string.Join(", ", Enumerable.Repeat($"*l{level - 1}", width))}]");
        }

        if (forward)
        {
            lines.Reverse();
        }

        return Step("parameters:\n      source: indiana-1000\n" + string.Join('\n', lines));
    }

    /// <summary>One scalar of <paramref name="length"/> characters, then a list of <paramref name="aliases"/> aliases of it.</summary>
    public static string LongScalarRepeated(int length, int aliases) =>
        Step($"parameters:\n      source: indiana-1000\n      long: &s {new string('x', length)}\n      many: [{string.Join(",", Enumerable.Repeat("*s", aliases))}]");

    /// <summary>Anchors each nesting <paramref name="levelsPerAnchor"/> lists around an alias of the one before: within the depth limit as written, past it expanded.</summary>
    public static string DeepThroughAliases(int levelsPerAnchor, int anchors)
    {
        var yaml = new StringBuilder("parameters:\n      source: indiana-1000\n");
        for (var i = 0; i < anchors; i++)
        {
            var inner = i == 0 ? "x" : $"*d{i - 1}";
            yaml.Append(CultureInfo.InvariantCulture, $"      d{i}: &d{i} {new string('[', levelsPerAnchor)}{inner}{new string(']', levelsPerAnchor)}\n");
        }

        return Step(yaml.ToString().TrimEnd());
    }

    /// <summary>
    /// A random value in flow style: scalars, lists and mappings up to four levels, nodes anchored at
    /// random with names from a small set (so anchors repeat), aliases naming any of them — before,
    /// after or inside their anchors — in any position, keys included; merge keys now and then.
    /// </summary>
    public static string Random(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        var text = new StringBuilder();
        Node(0);
        return text.ToString();

        void Node(int depth)
        {
            var roll = random.Next(10);
            if (roll < 2)
            {
                text.Append(CultureInfo.InvariantCulture, $"*n{random.Next(4)}");
                return;
            }

            if (random.Next(3) == 0)
            {
                text.Append(CultureInfo.InvariantCulture, $"&n{random.Next(4)} ");
            }

            if (depth >= 4 || roll < 5)
            {
                text.Append(random.Next(4) switch { 0 => "x", 1 => "1e400", 2 => "12", _ => "'q'" });
                return;
            }

            var mapping = roll >= 8;
            text.Append(mapping ? '{' : '[');
            var children = random.Next(5);
            for (var i = 0; i < children; i++)
            {
                if (i > 0)
                {
                    text.Append(", ");
                }

                if (mapping)
                {
                    if (random.Next(6) == 0)
                    {
                        text.Append("<<");
                    }
                    else if (random.Next(6) == 0)
                    {
                        Node(depth + 1); // any node as a key: aliases and collections included
                        text.Append(' ');
                    }
                    else
                    {
                        text.Append(CultureInfo.InvariantCulture, $"k{i}");
                    }

                    text.Append(": ");
                }

                Node(depth + 1);
            }

            text.Append(mapping ? '}' : ']');
        }
    }
}
