using System.Threading.Channels;

namespace Salsa.Gateway.Runs;

/// <summary>
/// The runs list's live feed: each watcher (a console's runs list, over server-sent events) hears of
/// every run of its tenant that was accepted or changed state. A watcher that falls behind loses the
/// oldest notices, not memory: it refreshes the list on the next one anyway.
/// </summary>
internal sealed class RunFeed
{
    private const int Backlog = 64;
    private readonly Lock _gate = new();
    private readonly List<(string Tenant, Channel<RunSummary> Channel)> _watchers = [];

    public ChannelReader<RunSummary> Watch(string tenant)
    {
        var channel = Channel.CreateBounded<RunSummary>(new BoundedChannelOptions(Backlog) { FullMode = BoundedChannelFullMode.DropOldest, SingleReader = true });
        lock (_gate)
        {
            _watchers.Add((tenant, channel));
        }

        return channel.Reader;
    }

    public void Unwatch(ChannelReader<RunSummary> reader)
    {
        lock (_gate)
        {
            _watchers.RemoveAll(w => w.Channel.Reader == reader);
        }
    }

    public void Publish(string tenant, RunView run)
    {
        var summary = RunSummary.Of(run);
        lock (_gate)
        {
            foreach (var (owner, channel) in _watchers)
            {
                if (owner == tenant)
                {
                    channel.Writer.TryWrite(summary);
                }
            }
        }
    }
}
