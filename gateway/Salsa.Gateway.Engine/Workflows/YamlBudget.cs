using System.Globalization;
using System.Text;
using YamlDotNet.Core;
using YamlDotNet.Core.Events;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// What a YAML text would cost to build, read from its events before any node is built: how deep
/// lists and mappings nest, how many nodes it holds and how many bytes its scalars hold once every
/// alias is read as the whole node its anchor names. An anchor's expanded cost is known when its node
/// ends, so one pass suffices — because an alias may only name a node that ended before it:
/// <list type="bullet">
/// <item>an alias before any anchor of its name is an error (YAML's own rule; YamlDotNet would
/// resolve it after the document, past any budget counted here);</item>
/// <item>an alias inside the node its anchor names is an error (the node would hold itself: a
/// cycle, which every later walk would follow forever);</item>
/// <item>an alias, like any list or mapping, as a key is an error (keys are plain names).</item>
/// </list>
/// A text past <see cref="WorkflowLimits.MaxNodes"/>, <see cref="WorkflowLimits.MaxValueBytes"/> or
/// <see cref="WorkflowLimits.MaxDepth"/> is refused here, at the event that passes it; errors are
/// reported at their position. So the representation model built later is a tree whose shared
/// nodes are all finished, and its expansion (the parameters' JSON) stays within the same limits.
/// </summary>
internal static class YamlBudget
{
    /// <summary>Checks <paramref name="yaml"/>; throws <see cref="YamlException"/> for a text that is not YAML.</summary>
    public static void Check(string yaml, string origin, WorkflowLimits limits, List<WorkflowError> errors)
    {
        var anchors = new Dictionary<string, Cost>(StringComparer.Ordinal);
        var open = new List<Collection>(); // a stack, innermost last; scanned for open anchors (at most MaxDepth long)
        long nodes = 0, bytes = 0; // so far, aliases expanded: checked as they grow, before they can overflow
        var parser = new Parser(new StringReader(yaml));
        while (parser.MoveNext())
        {
            var current = parser.Current!;
            switch (current)
            {
                case AnchorAlias alias:
                    Child(Alias(alias), counted: false, current);
                    break;
                case YamlDotNet.Core.Events.Scalar scalar:
                    var cost = new Cost(1, Encoding.UTF8.GetByteCount(scalar.Value), 0);
                    Remember(scalar, cost);
                    Child(cost, counted: false, current);
                    break;
                case NodeEvent start and (MappingStart or SequenceStart):
                    Depth(open.Count + 1);
                    if (AtKey())
                    {
                        errors.Add(At(start, "keys must be plain names"));
                    }

                    Count(new Cost(1, 0, 0), current);
                    open.Add(new Collection(start, start is MappingStart));
                    break;
                case MappingEnd or SequenceEnd:
                    var ended = open[^1];
                    open.RemoveAt(open.Count - 1);
                    var whole = new Cost(ended.Nodes + 1, ended.Bytes, ended.Height + 1);
                    Remember(ended.Start, whole);
                    Child(whole, counted: true, current);
                    break;
            }
        }

        // What an alias stands for: its anchor's node, when it may name it; else one node, and an error.
        Cost Alias(AnchorAlias alias)
        {
            var name = alias.Value.Value;
            if (AtKey())
            {
                errors.Add(At(alias, $"keys must be plain names, not an alias (*{name})"));
            }
            else if (open.Exists(c => !c.Start.Anchor.IsEmpty && c.Start.Anchor.Value == name))
            {
                errors.Add(At(alias, $"alias *{name} is inside the node its anchor &{name} names: a node cannot hold itself"));
            }
            else if (!anchors.TryGetValue(name, out var anchored))
            {
                errors.Add(At(alias, $"alias *{name} comes before any anchor &{name}: an alias repeats a node written before it"));
            }
            else
            {
                Depth(open.Count + anchored.Height);
                return anchored;
            }

            return new Cost(1, 0, 0);
        }

        bool AtKey() => open.Count > 0 && open[^1].IsMapping && open[^1].Children % 2 == 0;

        void Remember(NodeEvent node, Cost cost)
        {
            if (!node.Anchor.IsEmpty)
            {
                anchors[node.Anchor.Value] = cost;
            }
        }

        // A node of `cost` ends inside the innermost open collection; `counted` when its nodes and
        // bytes were counted as they were read (a collection's), not yet (a scalar's, an alias's).
        void Child(Cost cost, bool counted, ParsingEvent at)
        {
            if (open.Count > 0)
            {
                var parent = open[^1];
                parent.Nodes += cost.Nodes;
                parent.Bytes += cost.Bytes;
                parent.Height = Math.Max(parent.Height, cost.Height);
                parent.Children++;
            }

            if (!counted)
            {
                Count(cost, at);
            }
        }

        void Count(Cost cost, ParsingEvent at)
        {
            nodes += cost.Nodes;
            bytes += cost.Bytes;
            if (nodes > limits.MaxNodes)
            {
                throw Beyond(origin, string.Create(CultureInfo.InvariantCulture, $"expands to more than {limits.MaxNodes:N0} nodes by line {at.Start.Line} (an alias counts as every node of its anchor)"),
                    limits.MaxNodes, "nodes", nameof(WorkflowLimits.MaxNodes));
            }

            if (bytes > limits.MaxValueBytes)
            {
                throw Beyond(origin, string.Create(CultureInfo.InvariantCulture, $"expands to more than {limits.MaxValueBytes:N0} bytes of values by line {at.Start.Line} (an alias counts as every value of its anchor)"),
                    limits.MaxValueBytes, "bytes of values", nameof(WorkflowLimits.MaxValueBytes));
            }
        }

        void Depth(long levels)
        {
            if (levels > limits.MaxDepth)
            {
                throw Beyond(origin, string.Create(CultureInfo.InvariantCulture, $"nests more than {limits.MaxDepth:N0} levels of lists and mappings (an alias nests its anchor's levels where it stands)"),
                    limits.MaxDepth, "levels", nameof(WorkflowLimits.MaxDepth));
            }
        }
    }

    private static WorkflowError At(ParsingEvent at, string message) => new((int)at.Start.Line, (int)at.Start.Column, message);

    private static LimitExceededException Beyond(string origin, string what, int limit, string unit, string key) => WorkflowParser.Beyond($"{origin} {what}", limit, unit, key);

    /// <summary>A node's expanded cost: its nodes, the bytes of its scalars, and the levels of lists and mappings it nests (0 for a scalar).</summary>
    private readonly record struct Cost(long Nodes, long Bytes, int Height);

    private sealed class Collection(NodeEvent start, bool isMapping)
    {
        public NodeEvent Start { get; } = start;

        public bool IsMapping { get; } = isMapping;

        public long Nodes { get; set; }

        public long Bytes { get; set; }

        /// <summary>The most levels a child nests.</summary>
        public int Height { get; set; }

        public int Children { get; set; }
    }
}
