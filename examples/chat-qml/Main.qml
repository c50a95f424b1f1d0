// SPDX-License-Identifier: MIT
//
// A page of QML over Visindigo::Agent::MessageModel: the messages in a ListView (the answer in
// progress grows in its own row), an input line, Send and Stop. `chat` is the ChatController.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ApplicationWindow {
    id: window
    width: 640
    height: 520
    visible: true
    title: "Visindigo Agent — QML chat"

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 6

        ListView {
            id: messages
            objectName: "messages"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: chat.messages
            onCountChanged: positionViewAtEnd()
            delegate: Rectangle {
                required property string role
                required property string content
                required property string reasoning
                required property bool streaming
                width: ListView.view.width * 0.85
                x: role === "user" ? ListView.view.width - width : 0
                height: column.implicitHeight + 16
                radius: 8
                color: role === "user" ? "#d7e8ff" : role === "tool" ? "#f2f2f2" : "white"
                border.color: streaming ? "#3875d7" : "#c8c8c8"
                Column {
                    id: column
                    x: 8
                    y: 8
                    width: parent.width - 16
                    spacing: 2
                    Text { text: role; font.bold: true; font.pointSize: 8; color: "#777" }
                    Text {
                        visible: reasoning.length > 0
                        width: parent.width
                        text: reasoning
                        color: "#999"
                        font.italic: true
                        wrapMode: Text.Wrap
                    }
                    Text {
                        width: parent.width
                        text: content + (streaming ? " ▍" : "")
                        textFormat: role === "tool" ? Text.PlainText : Text.MarkdownText
                        wrapMode: Text.Wrap
                    }
                }
            }
        }

        Label {
            Layout.fillWidth: true
            text: chat.lastFailure.length > 0 ? "Failed: " + chat.lastFailure : chat.source
            color: chat.lastFailure.length > 0 ? "#b00020" : "#555"
            elide: Text.ElideRight
        }

        RowLayout {
            Layout.fillWidth: true
            TextField {
                id: input
                objectName: "input"
                Layout.fillWidth: true
                placeholderText: "Type a message and press Enter"
                onAccepted: send.clicked()
            }
            Button {
                id: send
                objectName: "send"
                text: "Send"
                enabled: !chat.streaming
                onClicked: { chat.send(input.text); input.clear() }
            }
            Button {
                objectName: "stop"
                text: "Stop"
                enabled: chat.streaming
                onClicked: chat.stop()
            }
        }
    }
}
