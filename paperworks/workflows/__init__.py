"""One LangGraph StateGraph per system, the registry that names them, and the runner."""
