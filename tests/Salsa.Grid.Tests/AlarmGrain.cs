namespace Salsa.Grid.Tests;

/// <summary>A grain woken by a reminder, counting the wake-ups in its stored state.</summary>
public interface IAlarmGrain : IGrainWithStringKey
{
    Task ArmAsync(TimeSpan due);

    Task<int> RungAsync();
}

public sealed class AlarmGrain([PersistentState("alarm")] IPersistentState<CounterState> state) : Grain, IAlarmGrain, IRemindable
{
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<string, TaskCompletionSource> s_rung = new(StringComparer.Ordinal);

    /// <summary>Completes when the alarm grain with this key has rung (its state written): the test waits on this, not on a clock.</summary>
    public static Task Rung(string key) => s_rung.GetOrAdd(key, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;

    public Task ArmAsync(TimeSpan due) => this.RegisterOrUpdateReminder("ring", due, TimeSpan.FromMinutes(1));

    public Task<int> RungAsync() => Task.FromResult(state.State.Total);

    public async Task ReceiveReminder(string reminderName, TickStatus status)
    {
        state.State.Total++;
        await state.WriteStateAsync();
        s_rung.GetOrAdd(this.GetPrimaryKeyString(), _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();
    }
}
